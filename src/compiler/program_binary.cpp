#include "compiler/program_binary.hpp"

#include "support/xxh3.hpp"

#include <algorithm>
#include <cstring>

namespace kiln::compiler {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'B', 'I', 'N', '\0'};
constexpr uint32_t kFormatVersion = 2; // 2: XXH3-64 checksum (was FNV-1a)

struct Header {
  char magic[8];
  uint32_t formatVersion;
  uint32_t binaryType;
  uint32_t targetSize;
  uint32_t optionsSize;
  uint64_t moduleSize;
  uint64_t checksum; // XXH3-64 of everything after the header, as the cache entries'
};

uint64_t checksum(std::span<const uint8_t> bytes) {
  return xxh3Checksum64(std::as_bytes(bytes));
}

void append(std::vector<uint8_t> &out, const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  out.insert(out.end(), bytes, bytes + size);
}

} // namespace

std::vector<uint8_t> serializeProgramBinary(const ProgramBinary &binary) {
  std::vector<uint8_t> body;
  body.reserve(binary.target.size() + binary.options.size() + binary.module.size());
  append(body, binary.target.data(), binary.target.size());
  append(body, binary.options.data(), binary.options.size());
  append(body, binary.module.data(), binary.module.size());

  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.formatVersion = kFormatVersion;
  header.binaryType = binary.type;
  header.targetSize = static_cast<uint32_t>(binary.target.size());
  header.optionsSize = static_cast<uint32_t>(binary.options.size());
  header.moduleSize = binary.module.size();
  header.checksum = checksum(body);

  std::vector<uint8_t> out(sizeof header + body.size());
  std::memcpy(out.data(), &header, sizeof header);
  std::copy(body.begin(), body.end(), out.begin() + sizeof header);
  return out;
}

std::optional<ProgramBinary> parseProgramBinary(std::span<const uint8_t> bytes) {
  Header header;
  if (bytes.size() < sizeof header)
    return std::nullopt;
  std::memcpy(&header, bytes.data(), sizeof header);
  std::span<const uint8_t> body = bytes.subspan(sizeof header);
  uint64_t expectedSize = uint64_t{header.targetSize} + header.optionsSize + header.moduleSize;
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 ||
      header.formatVersion != kFormatVersion || expectedSize != body.size() ||
      checksum(body) != header.checksum)
    return std::nullopt;
  switch (header.binaryType) {
  case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT:
  case CL_PROGRAM_BINARY_TYPE_LIBRARY:
  case CL_PROGRAM_BINARY_TYPE_EXECUTABLE:
    break;
  default:
    return std::nullopt;
  }
  ProgramBinary binary;
  binary.type = header.binaryType;
  auto text = [&](size_t offset, size_t size) {
    return std::string(reinterpret_cast<const char *>(body.data()) + offset, size);
  };
  binary.target = text(0, header.targetSize);
  binary.options = text(header.targetSize, header.optionsSize);
  auto module = body.subspan(header.targetSize + header.optionsSize);
  binary.module.assign(module.begin(), module.end());
  return binary;
}

} // namespace kiln::compiler
