//===- fast_path_branch.cpp - A cheap form of an instruction, under a run-time test ===//
#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"

#include "llvm/IR/Constants.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace kiln::cpu {

void branchToFastPath(Value *condition, Instruction &original,
                      function_ref<Value *(IRBuilder<> &)> buildFast) {
  Instruction *thenTerminator = nullptr;
  Instruction *elseTerminator = nullptr;
  SplitBlockAndInsertIfThenElse(condition, &original, &thenTerminator, &elseTerminator);
  BasicBlock *tail = original.getParent();
  IRBuilder<> builder(thenTerminator);
  Value *fast = buildFast(builder);
  original.moveBefore(elseTerminator->getIterator());
  if (original.getType()->isVoidTy())
    return;
  builder.SetInsertPoint(tail, tail->getFirstInsertionPt());
  PHINode *merged = builder.CreatePHI(original.getType(), 2, original.getName() + ".merged");
  original.replaceAllUsesWith(merged);
  merged->addIncoming(fast, thenTerminator->getParent());
  merged->addIncoming(&original, elseTerminator->getParent());
}

Value *allLanesSet(IRBuilder<> &builder, Value *lanes, const Twine &name) {
  auto *type = cast<FixedVectorType>(lanes->getType());
  Type *bits = builder.getIntNTy(type->getNumElements());
  return builder.CreateICmpEQ(builder.CreateBitCast(lanes, bits),
                              ConstantInt::getAllOnesValue(bits), name);
}

Value *noLaneSet(IRBuilder<> &builder, Value *lanes, const Twine &name) {
  auto *type = cast<FixedVectorType>(lanes->getType());
  Type *bits = builder.getIntNTy(type->getNumElements());
  return builder.CreateICmpEQ(builder.CreateBitCast(lanes, bits), ConstantInt::get(bits, 0), name);
}

bool isConstantFullMask(const Value *mask) {
  const auto *constant = dyn_cast<Constant>(mask);
  return constant != nullptr && constant->isAllOnesValue();
}

} // namespace kiln::cpu
