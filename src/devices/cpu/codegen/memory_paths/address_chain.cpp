//===- address_chain.cpp - An address as a function of one loop-varying value ===//
#include "devices/cpu/codegen/memory_paths/address_chain.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <functional>

using namespace llvm;

namespace kiln::cpu {

std::optional<AddressChain> addressChainOf(Value *address, const Loop &loop,
                                           function_ref<bool(Instruction &)> isSource) {
  AddressChain found;
  SmallPtrSet<Instruction *, 16> visited;
  // Depth-first, emitting an instruction after its operands.
  std::function<bool(Value *)> visit = [&](Value *value) -> bool {
    if (loop.isLoopInvariant(value))
      return true;
    auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr)
      return false;
    if (!visited.insert(instruction).second)
      return true;
    if (isSource(*instruction)) {
      if (found.source != nullptr)
        return false;
      found.source = instruction;
      return true;
    }
    // No division: the copy computes on a value the loop may never see (a zero or
    // INT_MIN / -1 would trap where the original never divides).
    if (!isa<GetElementPtrInst, CastInst, BinaryOperator>(instruction) ||
        instruction->isIntDivRem() || found.chain.size() == kMaxAddressChainLength)
      return false;
    for (Value *operand : instruction->operands())
      if (!visit(operand))
        return false;
    found.chain.push_back(instruction);
    return true;
  };
  if (!visit(address) || found.source == nullptr)
    return std::nullopt;
  return found;
}

namespace {

/// How many source steps `instruction` moves with, given its operands' (`scaleOf`: 0 for values
/// that do not follow the source); none where it is not linear in them, or the scale overflows.
std::optional<int64_t> scaleOfInstruction(Instruction &instruction,
                                          function_ref<int64_t(Value *)> scaleOf,
                                          const DataLayout &layout) {
  auto constantOperand = [](Value *value) -> std::optional<int64_t> {
    if (auto *constant = dyn_cast<ConstantInt>(value); constant && constant->getBitWidth() <= 64)
      return constant->getSExtValue();
    return std::nullopt;
  };
  if (isa<CastInst>(instruction))
    return scaleOf(instruction.getOperand(0));
  if (auto *element = dyn_cast<GetElementPtrInst>(&instruction)) {
    std::optional<int64_t> scale = scaleOf(element->getPointerOperand());
    for (gep_type_iterator index = gep_type_begin(element), end = gep_type_end(element);
         index != end && scale; ++index) {
      int64_t indexScale = scaleOf(index.getOperand());
      if (indexScale == 0)
        continue;
      if (index.isStruct())
        return std::nullopt;
      TypeSize stride = index.getSequentialElementStride(layout);
      if (stride.isScalable())
        return std::nullopt;
      scale = checkedMulAdd(indexScale, static_cast<int64_t>(stride.getFixedValue()), *scale);
    }
    return scale;
  }
  Value *left = instruction.getOperand(0);
  Value *right = instruction.getNumOperands() > 1 ? instruction.getOperand(1) : nullptr;
  switch (instruction.getOpcode()) {
  case Instruction::Add:
    return checkedAdd(scaleOf(left), scaleOf(right));
  case Instruction::Sub:
    return checkedSub(scaleOf(left), scaleOf(right));
  case Instruction::Or:
    if (!cast<PossiblyDisjointInst>(instruction).isDisjoint())
      return std::nullopt;
    return checkedAdd(scaleOf(left), scaleOf(right));
  case Instruction::Mul:
    if (std::optional<int64_t> factor = constantOperand(right))
      return checkedMul(scaleOf(left), *factor);
    if (std::optional<int64_t> factor = constantOperand(left))
      return checkedMul(scaleOf(right), *factor);
    break;
  case Instruction::Shl:
    if (std::optional<int64_t> shift = constantOperand(right); shift && *shift >= 0 && *shift < 32)
      return checkedMul(scaleOf(left), int64_t{1} << *shift);
    break;
  default:
    break;
  }
  if (scaleOf(left) == 0 && (right == nullptr || scaleOf(right) == 0))
    return 0;
  return std::nullopt;
}

} // namespace

std::optional<int64_t> bytesPerSourceStep(const AddressChain &computed, Value *address,
                                          const DataLayout &layout) {
  DenseMap<Value *, int64_t> scales{{computed.source, 1}};
  auto scaleOf = [&](Value *value) { return scales.lookup(value); };
  for (Instruction *instruction : computed.chain) {
    std::optional<int64_t> scale = scaleOfInstruction(*instruction, scaleOf, layout);
    if (!scale)
      return std::nullopt;
    scales[instruction] = *scale;
  }
  auto it = scales.find(address);
  return it != scales.end() ? std::optional<int64_t>(it->second) : std::nullopt;
}

Value *copyAddressChain(const AddressChain &computed, Value *address, Value *replacement,
                        IRBuilder<> &builder) {
  DenseMap<Value *, Value *> copies{{computed.source, replacement}};
  for (Instruction *original : computed.chain) {
    Instruction *copy = original->clone();
    for (Use &operand : copy->operands())
      if (auto it = copies.find(operand.get()); it != copies.end())
        operand.set(it->second);
    if (auto *element = dyn_cast<GetElementPtrInst>(copy))
      element->setNoWrapFlags(GEPNoWrapFlags::none());
    else
      copy->dropPoisonGeneratingFlags();
    builder.Insert(copy, original->getName() + ".ahead");
    copies[original] = copy;
  }
  return copies.lookup(address);
}

void prefetchForReading(Value *address, int locality, IRBuilder<> &builder) {
  builder.CreateIntrinsic(Intrinsic::prefetch, {address->getType()},
                          {address, builder.getInt32(0) /*read*/, builder.getInt32(locality),
                           builder.getInt32(1) /*data*/});
}

} // namespace kiln::cpu
