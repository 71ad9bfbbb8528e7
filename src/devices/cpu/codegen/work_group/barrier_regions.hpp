//===- barrier_regions.hpp - Work-item loops split at barriers -----------===//
//
// Makes one work-item's code run every work-item of a work-group on one thread
// (continuation-based synchronization). The body is cut at each barrier into regions: the code
// reachable from a barrier (or the start) without crossing another. Each region becomes a loop
// over the work-items; a region's loop ends when every work-item has reached the next barrier,
// so the barrier's semantics hold. Values that live across a barrier move to per-work-item
// storage, as do the work-item's private variables.
//
// Each region's work-item loop is an ordinary barrier-free loop nest (x innermost), which is
// what a vectorizer wants to see.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Value.h"

#include <cstdint>

namespace kiln::cpu {

/// What the work-item loops need from the function's prologue.
struct WorkItemLoopInputs {
  /// The prologue: runs once per work-group, holds every alloca, ends in a branch to the body.
  llvm::BasicBlock *prologue = nullptr;
  /// This work-group's size in each dimension (i64 values computed in the prologue).
  llvm::Value *localSize[3] = {nullptr, nullptr, nullptr};
  /// The work-group's per-work-item storage (WorkGroupParams::privateMemory).
  llvm::Value *privateMemory = nullptr;
  /// __kiln_work_group_barrier and __kiln_local_id (either may be null when unused).
  llvm::Function *barrier = nullptr;
  llvm::Function *localId = nullptr;
  /// kSubGroupYieldName (null when unused): where a work-item's turn ends without a barrier
  /// (spin_loop_yields.hpp); the others run before it goes on, but need not reach it.
  llvm::Function *yield = nullptr;
  /// kWorkGroupTurnName (null when unused): a yield after which, once every SIMD group has run
  /// up to its turn, the function returns to the runtime (grid_stride_turns.hpp), leaving in
  /// `turnState` (a uint32_t *, WorkGroupParams::turn) the region it goes on from when called
  /// again, and 0 there when the group has finished.
  llvm::Function *turn = nullptr;
  llvm::Value *turnState = nullptr;
  /// kWorkItemSlotName (may be null when unused): `ptr (ptr alloca, i64 item)`, the address of
  /// work-item `item`'s copy (numbered in linear local id order) of a private variable, which
  /// must be an alloca of the prologue. Only with simdWidth 1, where work-items exchange values
  /// through their private copies across a barrier (sub_group_emulation.hpp).
  llvm::Function *workItemSlot = nullptr;
  /// The primitives whose calls return the same value to every work-item of the work-group (its
  /// id, the sizes): values computed from them alone are kept once, not per work-item
  /// (work_group_uniform_values.hpp).
  llvm::SmallVector<const llvm::Function *, 8> groupPrimitives;
  /// Work-items of dimension 0 one iteration runs: the body was vectorized for this many lanes
  /// (work_item_vectorizer.hpp) and its __kiln_local_id(0) is the first lane's; 1 otherwise.
  unsigned simdWidth = 1;
  /// Work-items of dimension 0 to interleave in one iteration when simdWidth is 1 (1: none):
  /// the loop along dimension 0 asks LLVM's unroll-and-jam for this count.
  unsigned interleave = 1;
};

inline constexpr const char *kWorkItemSlotName = "__kiln_work_item_slot";

/// Rewrites `function`'s body (every block after the prologue) into work-item loops. Returns
/// the bytes of storage the function needs per iteration of the loops (per SIMD group of
/// simdWidth work-items).
uint64_t formWorkItemLoops(llvm::Function &function, const WorkItemLoopInputs &inputs);

} // namespace kiln::cpu
