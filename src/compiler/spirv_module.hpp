// A SPIR-V module as the words clCreateProgramWithIL received: its header, its instructions, and
// the few facts Kiln needs before translating it (the capabilities it declares, its
// specialization constants). LLVM-free: the runtime checks modules and specialization constants
// with it before the compiler library is loaded.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kiln::compiler {

inline constexpr uint32_t kSpirvMagic = 0x07230203;

/// SPIR-V's version word: 0x00MMmm00.
constexpr uint32_t spirvVersion(uint32_t major, uint32_t minor) {
  return major << 16 | minor << 8;
}

/// The opcodes and operands Kiln reads (numbers from the SPIR-V specification).
namespace spirv {
enum Op : uint16_t {
  OpMemoryModel = 14,
  OpCapability = 17,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeVector = 23,
  OpTypeArray = 28,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpConstantTrue = 41,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpConstantNull = 46,
  OpSpecConstantTrue = 48,
  OpSpecConstantFalse = 49,
  OpSpecConstant = 50,
  OpFunction = 54,
  OpFunctionParameter = 55,
  OpFunctionCall = 57,
  OpVariable = 59,
  OpLoad = 61,
  OpStore = 62,
  OpCopyMemory = 63,
  OpCopyMemorySized = 64,
  OpAccessChain = 65,
  OpInBoundsAccessChain = 66,
  OpPtrAccessChain = 67,
  OpInBoundsPtrAccessChain = 70,
  OpDecorate = 71,
  OpCompositeConstruct = 80,
  OpCompositeExtract = 81,
  OpCopyObject = 83,
  OpSConvert = 114,
  OpConvertPtrToU = 117,
  OpPtrCastToGeneric = 121,
  OpGenericCastToPtr = 122,
  OpBitcast = 124,
  OpISub = 130,
  OpSDiv = 135,
  OpSelect = 169,
  OpIEqual = 170,
  OpINotEqual = 171,
  OpPhi = 245,
  OpCopyLogical = 400,
  OpPtrEqual = 401,
  OpPtrNotEqual = 402,
  OpPtrDiff = 403,
  OpDecorateString = 5632,
  OpMemberDecorateString = 5633,
};
inline constexpr uint32_t kDecorationSpecId = 1;
inline constexpr uint32_t kDecorationUserSemantic = 5635;
inline constexpr uint32_t kAddressingPhysical32 = 1;
} // namespace spirv

/// One instruction: its opcode and its operands (the words after the first).
struct SpirvInstruction {
  uint16_t opcode;
  std::span<const uint32_t> operands;
};

/// A specialization constant: the SpecId decoration's number and the size in bytes that
/// clSetProgramSpecializationConstant must give (1 for booleans).
struct SpecializationConstant {
  uint32_t specId;
  uint32_t size;
};

/// Values given with clSetProgramSpecializationConstant, by SpecId, as bytes in host order.
using SpecializationValues = std::map<uint32_t, std::vector<uint8_t>>;

class SpirvModule {
public:
  /// Reads `bytes`; nothing, with the reason in `error`, when they are not a well-formed module
  /// (size, magic number, instruction lengths). Modules of the other byte order are accepted.
  static std::optional<SpirvModule> read(std::span<const uint8_t> bytes, std::string &error);

  uint32_t version() const { return words_[1]; }
  /// One more than the largest result id.
  uint32_t bound() const { return words_[3]; }
  /// The version as OpenCL lists it (CL_DEVICE_ILS_WITH_VERSION).
  cl_version clVersion() const {
    return CL_MAKE_VERSION(version() >> 16 & 0xff, version() >> 8 & 0xff, 0);
  }
  /// The module's words in host byte order.
  const std::vector<uint32_t> &words() const { return words_; }
  /// The instructions, in order.
  std::vector<SpirvInstruction> instructions() const;
  /// The numbers of the capabilities it declares.
  std::vector<uint32_t> capabilities() const;
  std::vector<SpecializationConstant> specializationConstants() const;

  /// The module with `values` as its specialization constants' defaults: what the translator
  /// then reads is the specialized module.
  SpirvModule specialized(const SpecializationValues &values) const;

  /// Another module made from this one's header, with `bound` as its id bound, and
  /// `instructions` (each an opcode and its operands), for transformations that change
  /// instruction lengths.
  SpirvModule withInstructions(const std::vector<std::vector<uint32_t>> &instructions,
                               uint32_t bound) const;

private:
  explicit SpirvModule(std::vector<uint32_t> words) : words_(std::move(words)) {}

  std::vector<uint32_t> words_;
};

/// "SPIR-V 1.2" for a version word.
std::string spirvVersionName(uint32_t version);

} // namespace kiln::compiler
