//===- contiguous_gather_fast_path.cpp - Vector loads for gathers that turn out consecutive ===//
#include "devices/cpu/codegen/memory_paths/contiguous_gather_fast_path.hpp"

#include "devices/cpu/codegen/ir_utilities/computed_address.hpp"
#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"
#include "devices/cpu/codegen/memory_paths/lane_access.hpp"
#include "devices/cpu/codegen/memory_paths/windowed_gather_fast_path.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// Whether lane l of `pointers` is lane 0's (`first`) plus l elements.
Value *lanesAreConsecutive(IRBuilder<> &builder, Value *pointers, Value *first,
                           uint64_t elementBytes) {
  unsigned lanes = cast<FixedVectorType>(pointers->getType())->getNumElements();
  SmallVector<Constant *, 64> offsets;
  for (unsigned lane = 0; lane < lanes; ++lane)
    offsets.push_back(builder.getInt64(lane * elementBytes));
  Value *expected =
      builder.CreateGEP(builder.getInt8Ty(), first, ConstantVector::get(offsets), "consecutive");
  return allLanesSet(builder, builder.CreateICmpEQ(pointers, expected), "lanes.consecutive");
}

/// Whether the lanes' addresses are a base plus constant offsets (the components of a vector
/// type in each work-item): their order is known, and not consecutive, or they would not be a
/// gather.
bool hasConstantOffsets(const Value *pointers) {
  const auto *gep = dyn_cast<GetElementPtrInst>(pointers);
  return gep != nullptr && !gep->getPointerOperandType()->isVectorTy() &&
         all_of(gep->indices(), [](const Use &index) { return isa<Constant>(index.get()); });
}

/// if (lanes consecutive) a vector access, masked unless every lane is on; else the gather or
/// scatter.
void branchOnConsecutiveLanes(const LaneAccess &access, const DataLayout &layout) {
  IntrinsicInst &call = *access.call;
  IRBuilder<> builder(&call);
  // Frozen: a lane that is off may hold any address, even poison, and the test branches on
  // them; the vector access starts at lane 0's.
  Value *pointers = builder.CreateFreeze(access.pointers);
  Value *first = builder.CreateExtractElement(pointers, uint64_t(0));
  Value *consecutive =
      lanesAreConsecutive(builder, pointers, first, layout.getTypeAllocSize(access.elementType));
  bool allLanes = isConstantFullMask(access.mask);
  branchToFastPath(consecutive, call, [&](IRBuilder<> &fast) -> Value * {
    if (access.isGather) {
      Type *type = call.getType();
      if (allLanes)
        return fast.CreateAlignedLoad(type, first, access.alignment, call.getName() + ".vector");
      return fast.CreateMaskedLoad(type, first, access.alignment, access.mask,
                                   call.getArgOperand(2), call.getName() + ".vector");
    }
    Value *value = call.getArgOperand(0);
    if (allLanes)
      return fast.CreateAlignedStore(value, first, access.alignment);
    return fast.CreateMaskedStore(value, first, access.alignment, access.mask);
  });
}

} // namespace

unsigned addContiguousGatherFastPaths(Function &function, bool windowedPermutes) {
  const DataLayout &layout = function.getParent()->getDataLayout();
  SmallVector<LaneAccess, 16> accesses;
  // Scalars are the same in every lane: only the vector operands can break the lanes' order.
  auto laneValues = [](const Value *value) { return value->getType()->isVectorTy(); };
  for (Instruction &instruction : instructions(function))
    if (std::optional<LaneAccess> access = gatherOrScatter(instruction))
      if (layout.getTypeStoreSize(access->elementType) ==
              layout.getTypeAllocSize(access->elementType) &&
          !hasConstantOffsets(access->pointers) &&
          isComputedWithoutLoads(access->pointers, laneValues))
        accesses.push_back(*access);
  for (const LaneAccess &access : accesses) {
    branchOnConsecutiveLanes(access, layout);
    // Tested second: consecutive lanes are the more common case, and their test the cheaper.
    if (windowedPermutes && hasWindowedForm(access, layout))
      branchOnLanesInWindows(access);
  }
  return accesses.size();
}

} // namespace kiln::cpu
