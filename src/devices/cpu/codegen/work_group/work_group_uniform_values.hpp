//===- work_group_uniform_values.hpp - Values every work-item of a work-group holds alike ===//
//
// Between barriers the work-item loops (barrier_regions.hpp) run one SIMD group after another,
// and a value live across a barrier is kept once per SIMD group. Many such values are the same
// for the whole work-group: the counter of a loop that holds a barrier (a scan's or a tree
// reduction's `offset`, a tiled product's tile index), and what is computed from it and from the
// work-group's own values alone. Kept once, such a value is read once per region instead of
// once per SIMD group, and what depends on it and on the local id can be recomputed where it is
// used (work_item_rematerialization.hpp); a branch on it sends every work-item the same way.
//
// Uniform are: constants, arguments, the prologue's values that name no private variable; the
// calls that read the work-group's id and sizes; side-effect-free steps of uniform operands;
// and the header phis of loops whose exits branch on uniform conditions, that are entered with
// a uniform value and go round with one. That last rule is optimistic (a loop counter's
// next value depends on the counter): every such phi is assumed uniform, and those whose
// loop or incoming values turn out not to be are dropped until none is.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"

namespace kiln::cpu {

class WorkGroupUniformValues {
public:
  /// `groupPrimitives`: the functions whose calls return the work-group's id, sizes and other
  /// values that are the same for each of its work-items.
  WorkGroupUniformValues(llvm::Function &function, const llvm::BasicBlock *prologue,
                         llvm::ArrayRef<const llvm::Function *> groupPrimitives);

  /// Whether every work-item of the work-group that computes `value` computes the same value,
  /// for an instruction that was in the function when the analysis ran (or any constant or
  /// argument).
  bool isUniform(const llvm::Value *value) const;

  /// Forgets an instruction that is about to be erased, so that a later one that takes its
  /// address is not mistaken for it.
  void forget(const llvm::Instruction *instruction) { uniform_.erase(instruction); }

private:
  bool computeUniform(const llvm::Value *value);
  bool loopExitsAreUniform(const llvm::PHINode *header);

  const llvm::BasicBlock *prologue_;
  llvm::SmallPtrSet<const llvm::Function *, 8> groupPrimitives_;
  /// Header phis still assumed uniform.
  llvm::SmallPtrSet<const llvm::PHINode *, 8> loopPhis_;
  /// The blocks each loop with such a phi leaves from, by the loop's header.
  llvm::DenseMap<const llvm::BasicBlock *, llvm::SmallVector<llvm::BasicBlock *, 4>> exitingOf_;
  llvm::DenseMap<const llvm::Value *, bool> memo_;
  llvm::SmallPtrSet<const llvm::Instruction *, 32> uniform_;
};

} // namespace kiln::cpu
