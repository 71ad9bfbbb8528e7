#include "compiler/spirv_module.hpp"

#include <algorithm>
#include <cstring>

namespace kiln::compiler {
namespace {

constexpr size_t kHeaderWords = 5;

uint32_t byteSwapped(uint32_t word) {
  return (word >> 24) | ((word >> 8) & 0xff00) | ((word << 8) & 0xff0000) | (word << 24);
}

/// Calls `visit(opcode, operands)` for each instruction of well-formed `words`.
template <typename Visit> void forEachInstruction(std::span<const uint32_t> words, Visit &&visit) {
  for (size_t at = kHeaderWords; at < words.size();) {
    uint32_t count = words[at] >> 16;
    visit(static_cast<uint16_t>(words[at] & 0xffff), words.subspan(at + 1, count - 1));
    at += count;
  }
}

/// The byte size of the scalar type whose result id is `type`, from the module's type
/// declarations; 0 when it is not a scalar.
uint32_t scalarSize(const std::map<uint32_t, uint32_t> &scalarSizes, uint32_t type) {
  auto found = scalarSizes.find(type);
  return found == scalarSizes.end() ? 0 : found->second;
}

} // namespace

std::optional<SpirvModule> SpirvModule::read(std::span<const uint8_t> bytes, std::string &error) {
  if (bytes.size() % 4 != 0 || bytes.size() < kHeaderWords * 4) {
    error = "a SPIR-V module is a whole number of 32-bit words, at least 5";
    return std::nullopt;
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words[0] == byteSwapped(kSpirvMagic)) {
    for (uint32_t &word : words)
      word = byteSwapped(word);
  } else if (words[0] != kSpirvMagic) {
    error = "not a SPIR-V module (its first word is not the SPIR-V magic number)";
    return std::nullopt;
  }
  for (size_t at = kHeaderWords; at < words.size();) {
    uint32_t count = words[at] >> 16;
    if (count == 0 || count > words.size() - at) {
      error = "the SPIR-V module's instruction at word " + std::to_string(at) +
              " has an impossible length";
      return std::nullopt;
    }
    at += count;
  }
  return SpirvModule(std::move(words));
}

std::vector<SpirvInstruction> SpirvModule::instructions() const {
  std::vector<SpirvInstruction> list;
  forEachInstruction(words_, [&](uint16_t opcode, std::span<const uint32_t> operands) {
    list.push_back({opcode, operands});
  });
  return list;
}

std::vector<uint32_t> SpirvModule::capabilities() const {
  std::vector<uint32_t> list;
  forEachInstruction(words_, [&](uint16_t opcode, std::span<const uint32_t> operands) {
    if (opcode == spirv::OpCapability && !operands.empty())
      list.push_back(operands[0]);
  });
  return list;
}

std::vector<SpecializationConstant> SpirvModule::specializationConstants() const {
  std::map<uint32_t, uint32_t> specIds; // result id -> SpecId
  std::map<uint32_t, uint32_t> scalarSizes;
  std::vector<SpecializationConstant> list;
  forEachInstruction(words_, [&](uint16_t opcode, std::span<const uint32_t> operands) {
    switch (opcode) {
    case spirv::OpDecorate:
      if (operands.size() >= 3 && operands[1] == spirv::kDecorationSpecId)
        specIds[operands[0]] = operands[2];
      break;
    case spirv::OpTypeBool:
      if (!operands.empty())
        scalarSizes[operands[0]] = 1;
      break;
    case spirv::OpTypeInt:
    case spirv::OpTypeFloat:
      if (operands.size() >= 2)
        scalarSizes[operands[0]] = operands[1] / 8;
      break;
    case spirv::OpSpecConstantTrue:
    case spirv::OpSpecConstantFalse:
    case spirv::OpSpecConstant:
      if (operands.size() >= 2)
        if (auto found = specIds.find(operands[1]); found != specIds.end())
          list.push_back({found->second, scalarSize(scalarSizes, operands[0])});
      break;
    default:
      break;
    }
  });
  return list;
}

SpirvModule SpirvModule::specialized(const SpecializationValues &values) const {
  SpirvModule result = *this;
  std::map<uint32_t, uint32_t> specIds;
  forEachInstruction(words_, [&](uint16_t opcode, std::span<const uint32_t> operands) {
    if (opcode == spirv::OpDecorate && operands.size() >= 3 &&
        operands[1] == spirv::kDecorationSpecId)
      specIds[operands[0]] = operands[2];
  });
  for (size_t at = kHeaderWords; at < result.words_.size();) {
    uint32_t &first = result.words_[at];
    uint32_t count = first >> 16;
    uint16_t opcode = first & 0xffff;
    bool isSpecConstant = opcode == spirv::OpSpecConstantTrue ||
                          opcode == spirv::OpSpecConstantFalse || opcode == spirv::OpSpecConstant;
    if (isSpecConstant && count >= 3) {
      auto id = specIds.find(result.words_[at + 2]);
      auto value = id == specIds.end() ? values.end() : values.find(id->second);
      if (value != values.end() && opcode == spirv::OpSpecConstant) {
        // The literal's words, low-order word first, from the value's bytes.
        size_t literalBytes = (count - 3) * 4;
        std::vector<uint8_t> padded(literalBytes, 0);
        std::memcpy(padded.data(), value->second.data(),
                    std::min(literalBytes, value->second.size()));
        std::memcpy(&result.words_[at + 3], padded.data(), literalBytes);
      } else if (value != values.end()) {
        bool isTrue = !value->second.empty() && value->second[0] != 0;
        first = count << 16 | (isTrue ? spirv::OpSpecConstantTrue : spirv::OpSpecConstantFalse);
      }
    }
    at += count;
  }
  return result;
}

SpirvModule SpirvModule::withInstructions(const std::vector<std::vector<uint32_t>> &instructions,
                                          uint32_t bound) const {
  std::vector<uint32_t> words(words_.begin(), words_.begin() + kHeaderWords);
  words[3] = bound;
  for (const std::vector<uint32_t> &instruction : instructions) {
    words.push_back(static_cast<uint32_t>(instruction.size()) << 16 | instruction[0]);
    words.insert(words.end(), instruction.begin() + 1, instruction.end());
  }
  return SpirvModule(std::move(words));
}

std::string spirvVersionName(uint32_t version) {
  return "SPIR-V " + std::to_string(version >> 16 & 0xff) + "." +
         std::to_string(version >> 8 & 0xff);
}

} // namespace kiln::compiler
