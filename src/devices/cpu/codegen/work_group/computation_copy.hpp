//===- computation_copy.hpp - Copying a value's computation to where it is used ===//
//
// Two steps of the barrier regions recompute a value next to its use instead of keeping the
// original: addresses into private arrays that the prologue computed, and local-id values live
// across a barrier. Both copy a chain of instructions, stopping at the values that stay shared.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Instruction.h"

namespace kiln::cpu {

/// Whether `instruction` computes its result from its operands alone: no memory, no trap, and the
/// same result every time (not freeze, whose result on poison may differ between two copies).
bool isPureStep(const llvm::Instruction &instruction);

/// Where a copy of `use`'s value must be computed: before its user, or for a phi at the end of
/// the block the value comes from.
llvm::Instruction *insertionPointFor(llvm::Use &use);

/// A copy of `value`'s computation before `insertionPoint`: `value` itself where `isCopied`
/// says no, else a clone of it whose operands are copied the same way.
llvm::Value *copyComputation(llvm::Value *value, llvm::Instruction *insertionPoint,
                             llvm::function_ref<bool(const llvm::Value *)> isCopied);

} // namespace kiln::cpu
