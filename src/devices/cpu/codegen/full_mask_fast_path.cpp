//===- full_mask_fast_path.cpp - Plain loads and stores when every lane is active ===//
#include "devices/cpu/codegen/full_mask_fast_path.hpp"

#include "devices/cpu/codegen/fast_path_branch.hpp"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

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

/// if (mask is full) plain access; else if (mask is empty) nothing; else the masked one.
void branchOnFullOrEmptyMask(const MaskedAccess &access) {
  IntrinsicInst &call = *access.call;
  IRBuilder<> builder(&call);
  Value *full = allLanesSet(builder, access.mask, "mask.full");
  branchToFastPath(full, call, [&](IRBuilder<> &fast) -> Value * {
    Instruction *plain =
        call.getIntrinsicID() == Intrinsic::masked_load
            ? static_cast<Instruction *>(fast.CreateAlignedLoad(
                  call.getType(), access.pointer, access.alignment, call.getName() + ".full"))
            : fast.CreateAlignedStore(call.getArgOperand(0), access.pointer, access.alignment);
    plain->copyMetadata(call);
    return plain;
  });
  // The masked form now sits on the "not full" side. Guarded stores whose guard is rarely
  // true (a kernel's border case) come here with no lane active, and a masked store costs
  // as much with an empty mask as with a full one (microcoded on Zen).
  IRBuilder<> partialSide(&call);
  Value *none = noLaneSet(partialSide, access.mask, "mask.none");
  branchToFastPath(none, call, [&](IRBuilder<> &) -> Value * {
    return call.getIntrinsicID() == Intrinsic::masked_load ? call.getArgOperand(2) : nullptr;
  });
}

} // namespace

unsigned addFullMaskFastPaths(Function &function) {
  SmallVector<MaskedAccess, 16> accesses;
  for (Instruction &instruction : instructions(function))
    if (std::optional<MaskedAccess> access = nonConstantMaskedAccess(instruction))
      accesses.push_back(*access);
  for (const MaskedAccess &access : accesses)
    branchOnFullOrEmptyMask(access);
  return accesses.size();
}

} // namespace kiln::cpu
