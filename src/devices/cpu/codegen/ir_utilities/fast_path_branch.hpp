//===- fast_path_branch.hpp - A cheap form of an instruction, under a run-time test ===//
//
// Several code generation steps keep an instruction for the general case and add a cheaper
// form for a case that can only be told at run time: a division by a power of two, a masked
// access with every lane active, a gather whose lanes are consecutive. They all take the same
// shape, built here: if (test) cheap form; else the original; the two results meet in a phi.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/IRBuilder.h"

namespace kiln::cpu {

/// Splits `original`'s block on `condition`: the true side runs what `buildFast` emits (at the
/// end of that side; it returns the value that stands for `original`'s), the false side runs
/// `original`. When `original` has a value, a phi of the two replaces its uses.
void branchToFastPath(llvm::Value *condition, llvm::Instruction &original,
                      llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &)> buildFast);

/// Whether every lane of the i1 vector `lanes` is set, as one scalar comparison.
llvm::Value *allLanesSet(llvm::IRBuilder<> &builder, llvm::Value *lanes, const llvm::Twine &name);

/// Whether no lane of the i1 vector `lanes` is set, as one scalar comparison.
llvm::Value *noLaneSet(llvm::IRBuilder<> &builder, llvm::Value *lanes, const llvm::Twine &name);

/// Whether `mask` is the constant "every lane".
bool isConstantFullMask(const llvm::Value *mask);

} // namespace kiln::cpu
