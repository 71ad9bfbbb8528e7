#include "runtime/program_cache/cache_entry.hpp"

#include "compiler/program_info_serialization.hpp"
#include "support/xxh3.hpp"

#include <algorithm>
#include <cstring>

namespace kiln {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'P', 'R', 'O', 'G'};
/// Bump with every change to the layout (ProgramInfo has a version of its own inside).
constexpr uint32_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint32_t formatVersion;
  uint32_t reserved; // zero
  uint64_t keySize;
  uint64_t payloadSize;
  uint64_t checksum; // XXH3-64 of everything after the header
};

std::vector<std::byte> encodePayload(const CachedProgram &program) {
  compiler::ByteWriter out;
  out.text(program.log);
  out.bytes(program.module);
  compiler::writeProgramInfo(out, program.info);
  out.bytes(program.deviceCode);
  return out.take();
}

std::optional<CachedProgram> decodePayload(std::span<const std::byte> bytes) {
  compiler::ByteReader in(bytes);
  CachedProgram program;
  program.log = in.text();
  std::span<const std::byte> module = in.bytes();
  const auto *moduleBytes = reinterpret_cast<const uint8_t *>(module.data());
  program.module.assign(moduleBytes, moduleBytes + module.size());
  std::optional<compiler::ProgramInfo> info = compiler::readProgramInfo(in);
  std::span<const std::byte> deviceCode = in.bytes();
  if (!info || !in.ok() || !in.atEnd())
    return std::nullopt;
  program.info = std::move(*info);
  program.deviceCode.assign(deviceCode.begin(), deviceCode.end());
  return program;
}

} // namespace

std::vector<std::byte> encodeCacheEntry(const CacheKey &key, const CachedProgram &program) {
  std::span<const std::byte> material = key.material();
  std::vector<std::byte> payload = encodePayload(program);
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.formatVersion = kFormatVersion;
  header.keySize = material.size();
  header.payloadSize = payload.size();

  std::vector<std::byte> out(sizeof header);
  out.reserve(sizeof header + material.size() + payload.size());
  out.insert(out.end(), material.begin(), material.end());
  out.insert(out.end(), payload.begin(), payload.end());
  header.checksum = xxh3Checksum64(std::span(out).subspan(sizeof header));
  std::memcpy(out.data(), &header, sizeof header);
  return out;
}

std::optional<CachedProgram> decodeCacheEntry(std::span<const std::byte> bytes,
                                              const CacheKey &key) {
  Header header;
  if (bytes.size() < sizeof header)
    return std::nullopt;
  std::memcpy(&header, bytes.data(), sizeof header);
  std::span<const std::byte> body = bytes.subspan(sizeof header);
  std::span<const std::byte> material = key.material();
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 ||
      header.formatVersion != kFormatVersion || header.reserved != 0 ||
      header.keySize != material.size() || body.size() < material.size() ||
      header.payloadSize != body.size() - material.size() ||
      xxh3Checksum64(body) != header.checksum ||
      !std::equal(material.begin(), material.end(), body.begin()))
    return std::nullopt;
  return decodePayload(body.subspan(material.size()));
}

} // namespace kiln
