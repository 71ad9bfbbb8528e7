#include "compiler/spirv_translator_input.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>

namespace kiln::compiler {
namespace {

using Instruction = std::vector<uint32_t>; // opcode, then operands

/// The bits of a memory-operands mask that take one more operand each (Aligned's alignment,
/// MakePointerAvailable's and MakePointerVisible's scopes).
constexpr uint32_t kMemoryOperandsWithArgument = 0x2 | 0x8 | 0x10;

/// Instructions whose first two operands are a result type and a result, and whose result can
/// be a pointer or a composite that the lowerings below need the type of.
bool hasTypedResult(uint16_t opcode) {
  switch (opcode) {
  case spirv::OpConstantComposite:
  case spirv::OpFunctionParameter:
  case spirv::OpFunctionCall:
  case spirv::OpVariable:
  case spirv::OpLoad:
  case spirv::OpAccessChain:
  case spirv::OpInBoundsAccessChain:
  case spirv::OpPtrAccessChain:
  case spirv::OpInBoundsPtrAccessChain:
  case spirv::OpCompositeConstruct:
  case spirv::OpCompositeExtract:
  case spirv::OpCopyObject:
  case spirv::OpPtrCastToGeneric:
  case spirv::OpGenericCastToPtr:
  case spirv::OpBitcast:
  case spirv::OpSelect:
  case spirv::OpPhi:
  case spirv::OpCopyLogical:
    return true;
  default:
    return false;
  }
}

class TranslatorInputRewriter {
public:
  explicit TranslatorInputRewriter(const SpirvModule &module)
      : module_(module), nextId_(module.bound()) {}

  SpirvModule run() {
    for (const SpirvInstruction &instruction : module_.instructions())
      record(instruction);
    for (const SpirvInstruction &instruction : module_.instructions()) {
      if (instruction.opcode == spirv::OpFunction && !functionsStarted_) {
        functionsStarted_ = true;
        declarationsEnd_ = output_.size();
      }
      if (!rewrite(instruction))
        output_.push_back(copyOf(instruction));
    }
    if (!changed_)
      return module_;
    output_.insert(output_.begin() + static_cast<ptrdiff_t>(declarationsEnd_),
                   declarations_.begin(), declarations_.end());
    return module_.withInstructions(output_, nextId_);
  }

private:
  struct Type {
    uint16_t opcode;
    std::vector<uint32_t> operands; // after the result id
  };

  static Instruction copyOf(const SpirvInstruction &instruction) {
    Instruction copy = {instruction.opcode};
    copy.insert(copy.end(), instruction.operands.begin(), instruction.operands.end());
    return copy;
  }

  /// Types, constants' values, values' types and the addressing model, from the whole module.
  void record(const SpirvInstruction &instruction) {
    std::span<const uint32_t> operands = instruction.operands;
    uint16_t opcode = instruction.opcode;
    if (opcode == spirv::OpMemoryModel && !operands.empty())
      pointerBits_ = operands[0] == spirv::kAddressingPhysical32 ? 32 : 64;
    bool isType = opcode == spirv::OpTypeBool || opcode == spirv::OpTypeInt ||
                  opcode == spirv::OpTypeFloat || opcode == spirv::OpTypeVector ||
                  opcode == spirv::OpTypeArray || opcode == spirv::OpTypeStruct ||
                  opcode == spirv::OpTypePointer;
    if (isType && !operands.empty())
      types_[operands[0]] = {opcode, {operands.begin() + 1, operands.end()}};
    if (opcode == spirv::OpTypeInt && operands.size() >= 3 && operands[2] == 0)
      unsignedInts_.try_emplace(operands[1], operands[0]);
    if (opcode == spirv::OpConstant && operands.size() >= 3)
      constants_[operands[1]] = operands[2];
    if ((hasTypedResult(opcode) || opcode == spirv::OpConstant) && operands.size() >= 2)
      valueTypes_[operands[1]] = operands[0];
  }

  /// Whether `instruction` was rewritten (its replacement appended to the output).
  bool rewrite(const SpirvInstruction &instruction) {
    std::span<const uint32_t> operands = instruction.operands;
    switch (instruction.opcode) {
    case spirv::OpConstantNull:
      return operands.size() == 2 && lowerScalarNull(operands);
    case spirv::OpPtrEqual:
    case spirv::OpPtrNotEqual:
      return operands.size() == 4 && lowerPointerComparison(instruction.opcode, operands);
    case spirv::OpPtrDiff:
      return operands.size() == 4 && lowerPointerDifference(operands);
    case spirv::OpCopyLogical:
      return operands.size() == 3 && lowerCopyLogical(operands);
    case spirv::OpCopyMemory:
      return lowerCopyMemory(operands) || dropSourceMemoryOperands(instruction);
    case spirv::OpCopyMemorySized:
      return dropSourceMemoryOperands(instruction);
    case spirv::OpDecorateString:
      return operands.size() >= 2 && operands[1] == spirv::kDecorationUserSemantic && drop();
    case spirv::OpMemberDecorateString:
      return operands.size() >= 3 && operands[2] == spirv::kDecorationUserSemantic && drop();
    default:
      return false;
    }
  }

  bool drop() {
    changed_ = true;
    return true;
  }

  void emit(Instruction instruction) {
    output_.push_back(std::move(instruction));
    changed_ = true;
  }

  uint32_t newId() { return nextId_++; }

  bool lowerScalarNull(std::span<const uint32_t> operands) {
    auto type = types_.find(operands[0]);
    if (type == types_.end())
      return false;
    if (type->second.opcode == spirv::OpTypeBool) {
      emit({spirv::OpConstantFalse, operands[0], operands[1]});
      return true;
    }
    if (type->second.opcode != spirv::OpTypeInt && type->second.opcode != spirv::OpTypeFloat)
      return false;
    Instruction zero = {spirv::OpConstant, operands[0], operands[1]};
    zero.resize(zero.size() + (type->second.operands[0] + 31) / 32, 0);
    emit(std::move(zero));
    return true;
  }

  /// The unsigned integer type as wide as a pointer, declared when the module has none.
  uint32_t pointerSizedInt() {
    if (auto found = unsignedInts_.find(pointerBits_); found != unsignedInts_.end())
      return found->second;
    uint32_t id = newId();
    declarations_.push_back({spirv::OpTypeInt, id, pointerBits_, 0});
    unsignedInts_[pointerBits_] = id;
    return id;
  }

  /// A new constant of the pointer-sized integer type.
  uint32_t pointerSizedConstant(uint64_t value) {
    uint32_t type = pointerSizedInt();
    uint32_t id = newId();
    Instruction constant = {spirv::OpConstant, type, id, static_cast<uint32_t>(value)};
    if (pointerBits_ == 64)
      constant.push_back(static_cast<uint32_t>(value >> 32));
    declarations_.push_back(std::move(constant));
    return id;
  }

  uint32_t addressOf(uint32_t pointer) {
    uint32_t id = newId();
    emit({spirv::OpConvertPtrToU, pointerSizedInt(), id, pointer});
    return id;
  }

  bool lowerPointerComparison(uint16_t opcode, std::span<const uint32_t> operands) {
    uint32_t left = addressOf(operands[2]);
    uint32_t right = addressOf(operands[3]);
    emit({static_cast<uint32_t>(opcode == spirv::OpPtrEqual ? spirv::OpIEqual : spirv::OpINotEqual),
          operands[0], operands[1], left, right});
    return true;
  }

  /// The size in bytes of type `id` as OpenCL lays it out; nothing for types it cannot size.
  std::optional<uint64_t> sizeOf(uint32_t id) const {
    auto type = types_.find(id);
    if (type == types_.end())
      return std::nullopt;
    const std::vector<uint32_t> &operands = type->second.operands;
    switch (type->second.opcode) {
    case spirv::OpTypeInt:
    case spirv::OpTypeFloat:
      return operands[0] / 8;
    case spirv::OpTypePointer:
      return pointerBits_ / 8;
    case spirv::OpTypeVector: {
      std::optional<uint64_t> element = sizeOf(operands[0]);
      // Three-element vectors take the room of four.
      return element ? std::optional(*element * (operands[1] == 3 ? 4 : operands[1]))
                     : std::nullopt;
    }
    case spirv::OpTypeArray: {
      std::optional<uint64_t> element = sizeOf(operands[0]);
      auto length = constants_.find(operands[1]);
      return element && length != constants_.end() ? std::optional(*element * length->second)
                                                   : std::nullopt;
    }
    default:
      return std::nullopt;
    }
  }

  bool lowerPointerDifference(std::span<const uint32_t> operands) {
    auto pointerType = valueTypes_.find(operands[2]);
    auto pointer =
        pointerType == valueTypes_.end() ? types_.end() : types_.find(pointerType->second);
    if (pointer == types_.end() || pointer->second.opcode != spirv::OpTypePointer)
      return false;
    std::optional<uint64_t> elementSize = sizeOf(pointer->second.operands[1]);
    if (!elementSize || *elementSize == 0)
      return false;
    uint32_t intType = pointerSizedInt();
    uint32_t left = addressOf(operands[2]);
    uint32_t right = addressOf(operands[3]);
    uint32_t bytes = newId();
    emit({spirv::OpISub, intType, bytes, left, right});
    uint32_t elements = operands[0] == intType ? operands[1] : newId();
    emit({spirv::OpSDiv, intType, elements, bytes, pointerSizedConstant(*elementSize)});
    if (elements != operands[1])
      emit({spirv::OpSConvert, operands[0], operands[1], elements});
    return true;
  }

  /// Member (or element) `index`'s type of composite type `type`.
  std::optional<uint32_t> memberType(const Type &type, uint32_t index) const {
    if (type.opcode == spirv::OpTypeStruct)
      return index < type.operands.size() ? std::optional(type.operands[index]) : std::nullopt;
    if (type.opcode == spirv::OpTypeArray)
      return type.operands[0];
    return std::nullopt;
  }

  std::optional<uint32_t> memberCount(const Type &type) const {
    if (type.opcode == spirv::OpTypeStruct)
      return static_cast<uint32_t>(type.operands.size());
    if (type.opcode == spirv::OpTypeArray)
      if (auto length = constants_.find(type.operands[1]); length != constants_.end())
        return length->second;
    return std::nullopt;
  }

  /// Emits `result` (of type `to`) as `source` (of type `from`) copied member by member.
  bool copyLogical(uint32_t to, uint32_t from, uint32_t source, uint32_t result) {
    if (to == from) {
      emit({spirv::OpCopyObject, to, result, source});
      return true;
    }
    auto target = types_.find(to), origin = types_.find(from);
    if (target == types_.end() || origin == types_.end() ||
        target->second.opcode != origin->second.opcode)
      return false;
    std::optional<uint32_t> count = memberCount(target->second);
    if (!count || count != memberCount(origin->second))
      return false;
    Instruction construct = {spirv::OpCompositeConstruct, to, result};
    for (uint32_t index = 0; index < *count; ++index) {
      std::optional<uint32_t> toMember = memberType(target->second, index);
      std::optional<uint32_t> fromMember = memberType(origin->second, index);
      if (!toMember || !fromMember)
        return false;
      uint32_t extracted = newId();
      emit({spirv::OpCompositeExtract, *fromMember, extracted, source, index});
      uint32_t member = extracted;
      if (*toMember != *fromMember) {
        member = newId();
        if (!copyLogical(*toMember, *fromMember, extracted, member))
          return false;
      }
      construct.push_back(member);
    }
    emit(std::move(construct));
    return true;
  }

  bool lowerCopyLogical(std::span<const uint32_t> operands) {
    auto sourceType = valueTypes_.find(operands[2]);
    if (sourceType == valueTypes_.end())
      return false;
    size_t mark = output_.size();
    uint32_t idMark = nextId_;
    if (copyLogical(operands[0], sourceType->second, operands[2], operands[1]))
      return true;
    // Types it cannot follow: leave the instruction for the translator to refuse.
    output_.resize(mark);
    nextId_ = idMark;
    return false;
  }

  /// The memory-operand set (a mask and its arguments) starting at `at`; empty past the end.
  static std::span<const uint32_t> memoryOperandSet(std::span<const uint32_t> operands, size_t at) {
    if (at >= operands.size())
      return {};
    size_t length = 1 + std::popcount(operands[at] & kMemoryOperandsWithArgument);
    return operands.subspan(at, std::min(length, operands.size() - at));
  }

  /// OpCopyMemory, which the translator cannot read in any form, as a load and a store of the
  /// pointee. With two sets of memory operands the first is the target's and the second the
  /// source's; one set is both's.
  bool lowerCopyMemory(std::span<const uint32_t> operands) {
    if (operands.size() < 2)
      return false;
    auto sourceType = valueTypes_.find(operands[1]);
    auto pointer = sourceType == valueTypes_.end() ? types_.end() : types_.find(sourceType->second);
    if (pointer == types_.end() || pointer->second.opcode != spirv::OpTypePointer)
      return false;
    std::span<const uint32_t> targetSet = memoryOperandSet(operands, 2);
    std::span<const uint32_t> sourceSet = memoryOperandSet(operands, 2 + targetSet.size());
    if (sourceSet.empty())
      sourceSet = targetSet;
    uint32_t value = newId();
    Instruction load = {spirv::OpLoad, pointer->second.operands[1], value, operands[1]};
    load.insert(load.end(), sourceSet.begin(), sourceSet.end());
    emit(std::move(load));
    Instruction store = {spirv::OpStore, operands[0], value};
    store.insert(store.end(), targetSet.begin(), targetSet.end());
    emit(std::move(store));
    return true;
  }

  /// OpCopyMemory and OpCopyMemorySized with only their first set of memory operands.
  bool dropSourceMemoryOperands(const SpirvInstruction &instruction) {
    size_t fixed = instruction.opcode == spirv::OpCopyMemory ? 2 : 3;
    std::span<const uint32_t> operands = instruction.operands;
    if (operands.size() <= fixed)
      return false;
    uint32_t mask = operands[fixed];
    size_t firstSetEnd = fixed + 1 + std::popcount(mask & kMemoryOperandsWithArgument);
    if (operands.size() <= firstSetEnd)
      return false;
    Instruction copy = {instruction.opcode};
    copy.insert(copy.end(), operands.begin(), operands.begin() + firstSetEnd);
    emit(std::move(copy));
    return true;
  }

  const SpirvModule &module_;
  uint32_t nextId_;
  uint32_t pointerBits_ = 64;
  std::map<uint32_t, Type> types_;
  std::map<uint32_t, uint32_t> unsignedInts_; // width -> type id
  std::map<uint32_t, uint64_t> constants_;    // id -> value (low word)
  std::map<uint32_t, uint32_t> valueTypes_;   // id -> type id
  std::vector<Instruction> output_;
  std::vector<Instruction> declarations_; // types and constants the lowerings need
  size_t declarationsEnd_ = 0;
  bool functionsStarted_ = false;
  bool changed_ = false;
};

} // namespace

SpirvModule rewriteForTranslator(const SpirvModule &module) {
  return TranslatorInputRewriter(module).run();
}

} // namespace kiln::compiler
