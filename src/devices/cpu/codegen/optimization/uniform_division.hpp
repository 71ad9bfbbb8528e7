//===- uniform_division.hpp - Division by a work-group-invariant divisor --===//
//
// A kernel that divides by one of its arguments (`id / distance`, `id % width`) divides by the
// same value in every work-item. x86 has no cheap integer division, and a vector of lanes has
// none at all. When that divisor is a power of two, as it usually is (sorting networks, FFTs,
// strides), the division is a shift and the remainder a mask. This step gives each unsigned
// division by a work-group-invariant divisor a branch on "the divisor is a power of two". It
// runs on the specialized work-group function after the vectorizer, so a vectorized division
// (a divisor splat across the lanes) gets the same scalar branch, which the optimizer then
// moves out of the work-item loops (loop unswitching). Before the vectorizer, the branch would
// be linearized like any other and both sides would run.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Rewrites the unsigned divisions and remainders, scalar or vector, of `function`'s body (the
/// blocks after its entry block, the work-group prologue) whose divisor is the same for every
/// work-item; returns how many.
unsigned specializePowerOfTwoDivisions(llvm::Function &function);

} // namespace kiln::cpu
