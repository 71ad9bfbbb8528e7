#include "devices/cpu/prepared_program_serialization.hpp"

#include "compiler/byte_stream.hpp"

namespace kiln::cpu {
namespace {

/// Changes whenever the layout below, or what the prepared module holds, changes.
constexpr uint32_t kFormatVersion = 2;

} // namespace

std::vector<std::byte> serializePreparedProgram(const PreparedProgram &prepared) {
  compiler::ByteWriter out;
  out.number<uint32_t>(kFormatVersion);
  out.number<uint8_t>(prepared.optimize ? 1 : 0);
  out.number<uint32_t>(prepared.requestedSimdWidth);
  out.number<uint8_t>(prepared.reportVectorization ? 1 : 0);
  out.number<uint64_t>(prepared.preferredMultiples.size());
  for (uint32_t multiple : prepared.preferredMultiples)
    out.number<uint32_t>(multiple);
  for (uint32_t width : prepared.subGroupWidths)
    out.number<uint32_t>(width);
  out.bytes(std::span<const uint8_t>(prepared.module));
  return out.take();
}

std::optional<PreparedProgram> parsePreparedProgram(std::span<const std::byte> bytes,
                                                    size_t kernelCount) {
  compiler::ByteReader in(bytes);
  if (in.number<uint32_t>() != kFormatVersion)
    return std::nullopt;
  PreparedProgram prepared;
  prepared.optimize = in.number<uint8_t>() != 0;
  prepared.requestedSimdWidth = in.number<uint32_t>();
  prepared.reportVectorization = in.number<uint8_t>() != 0;
  size_t multiples = in.count(sizeof(uint32_t));
  if (multiples != kernelCount)
    return std::nullopt;
  for (size_t index = 0; index < multiples; ++index)
    prepared.preferredMultiples.push_back(in.number<uint32_t>());
  for (size_t index = 0; index < multiples; ++index)
    prepared.subGroupWidths.push_back(in.number<uint32_t>());
  std::span<const std::byte> module = in.bytes();
  if (!in.ok() || !in.atEnd() || module.empty())
    return std::nullopt;
  const auto *first = reinterpret_cast<const uint8_t *>(module.data());
  prepared.module.assign(first, first + module.size());
  return prepared;
}

} // namespace kiln::cpu
