//===- work_item_rematerialization.hpp - Recomputing local-id values after barriers ===//
//
// A value used on both sides of a barrier is kept for each work-item in the work-group's private
// storage (barrier_regions.hpp): stored before the barrier, loaded after it. Many such values
// are only the work-item's local id and arithmetic on it and on values that are the same for
// the whole work-group: a scan's `id` and `id - offset`'s pieces, the lane vector of a SIMD
// group, the address `&tile[lid]` of a tile in local memory. Recomputing those where they are
// used costs an instruction or two; keeping them costs a store, a load per use, and the slot
// (a 64-lane vector is 256 bytes per SIMD group, read in every region that uses it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// For each instruction of `body` for which `isLiveAcrossBarrier` holds and that computes from
/// calls of `localId` with a constant dimension, constants, arguments, values of `prologue` and
/// values for which `isWorkGroupUniform` holds (work_group_uniform_values.hpp) alone, in a few
/// side-effect-free steps: its uses in other blocks get a copy of that computation just before
/// them, so it is no longer live across any barrier (the uniform values it reads still are).
void rematerializeWorkItemValues(llvm::ArrayRef<llvm::BasicBlock *> body,
                                 const llvm::BasicBlock *prologue, const llvm::Function *localId,
                                 llvm::function_ref<bool(llvm::Instruction &)> isLiveAcrossBarrier,
                                 llvm::function_ref<bool(const llvm::Value &)> isWorkGroupUniform);

} // namespace kiln::cpu
