//===- computation_copy.cpp - Copying a value's computation to where it is used ===//
#include "devices/cpu/codegen/work_group/computation_copy.hpp"

#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {

bool isPureStep(const Instruction &instruction) {
  if (const auto *binary = dyn_cast<BinaryOperator>(&instruction))
    return !binary->isIntDivRem();
  return isa<CastInst, GetElementPtrInst, CmpInst, SelectInst, ShuffleVectorInst, InsertElementInst,
             ExtractElementInst>(instruction);
}

Instruction *insertionPointFor(Use &use) {
  auto *user = cast<Instruction>(use.getUser());
  if (auto *phi = dyn_cast<PHINode>(user))
    return phi->getIncomingBlock(use)->getTerminator();
  return user;
}

Value *copyComputation(Value *value, Instruction *insertionPoint,
                       function_ref<bool(const Value *)> isCopied) {
  if (!isCopied(value))
    return value;
  auto *original = cast<Instruction>(value);
  Instruction *copy = original->clone();
  for (Use &operand : copy->operands())
    operand.set(copyComputation(operand.get(), insertionPoint, isCopied));
  copy->insertBefore(insertionPoint->getIterator());
  copy->setName(original->getName() + ".again");
  return copy;
}

} // namespace kiln::cpu
