//===- full_mask_fast_path.cpp - Plain loads and stores when every lane is active ===//
#include "devices/cpu/codegen/full_mask_fast_path.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

struct MaskedAccess {
  IntrinsicInst *call;
  Value *pointer;
  Value *mask;
  Align alignment;
};

/// The operands of a masked load or store with a mask that is not a constant, if `instruction`
/// is one. LLVM 22's intrinsics carry the alignment on the pointer argument, not as an operand.
std::optional<MaskedAccess> nonConstantMaskedAccess(Instruction &instruction) {
  auto *call = dyn_cast<IntrinsicInst>(&instruction);
  if (call == nullptr)
    return std::nullopt;
  unsigned pointerOperand = 0;
  if (call->getIntrinsicID() == Intrinsic::masked_load)
    pointerOperand = 0;
  else if (call->getIntrinsicID() == Intrinsic::masked_store)
    pointerOperand = 1;
  else
    return std::nullopt;
  Value *mask = call->getArgOperand(pointerOperand + 1);
  if (isa<Constant>(mask))
    return std::nullopt;
  Align alignment = call->getParamAlign(pointerOperand).valueOrOne();
  return MaskedAccess{call, call->getArgOperand(pointerOperand), mask, alignment};
}

/// Whether every lane of `mask` is set, as one scalar comparison.
Value *allLanesSet(IRBuilder<> &builder, Value *mask) {
  auto *maskType = cast<FixedVectorType>(mask->getType());
  Type *bits = builder.getIntNTy(maskType->getNumElements());
  return builder.CreateICmpEQ(builder.CreateBitCast(mask, bits), ConstantInt::getAllOnesValue(bits),
                              "mask.full");
}

/// if (mask is full) plain access; else the masked one. A load's two results meet in a phi.
void branchOnFullMask(const MaskedAccess &access) {
  IntrinsicInst &call = *access.call;
  IRBuilder<> builder(&call);
  Value *full = allLanesSet(builder, access.mask);
  Instruction *thenTerminator = nullptr;
  Instruction *elseTerminator = nullptr;
  SplitBlockAndInsertIfThenElse(full, &call, &thenTerminator, &elseTerminator);
  BasicBlock *tail = call.getParent();

  builder.SetInsertPoint(thenTerminator);
  Instruction *plain = nullptr;
  bool isLoad = call.getIntrinsicID() == Intrinsic::masked_load;
  if (isLoad)
    plain = builder.CreateAlignedLoad(call.getType(), access.pointer, access.alignment,
                                      call.getName() + ".full");
  else
    plain = builder.CreateAlignedStore(call.getArgOperand(0), access.pointer, access.alignment);
  plain->copyMetadata(call);
  call.moveBefore(elseTerminator->getIterator());
  if (!isLoad)
    return;
  builder.SetInsertPoint(tail, tail->getFirstInsertionPt());
  PHINode *merged = builder.CreatePHI(call.getType(), 2, call.getName());
  call.replaceAllUsesWith(merged);
  merged->addIncoming(plain, plain->getParent());
  merged->addIncoming(&call, call.getParent());
}

} // namespace

unsigned addFullMaskFastPaths(Function &function) {
  SmallVector<MaskedAccess, 16> accesses;
  for (Instruction &instruction : instructions(function))
    if (std::optional<MaskedAccess> access = nonConstantMaskedAccess(instruction))
      accesses.push_back(*access);
  for (const MaskedAccess &access : accesses)
    branchOnFullMask(access);
  return accesses.size();
}

} // namespace kiln::cpu
