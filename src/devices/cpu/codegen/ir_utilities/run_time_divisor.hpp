//===- run_time_divisor.hpp - A division's divisor known only at run time --===//
//
// Two code generation steps cheapen unsigned divisions whose divisor is one value known only at
// run time: for every lane of a vectorized division, or for a scalar one (a power of two becomes
// a shift, uniform_division; lanes multiply by a reciprocal, lane_division). Both find that
// divisor here. A constant divisor is left to LLVM's own code generator, which already
// multiplies by its reciprocal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Instructions.h"

namespace kiln::cpu {

/// The divisor of `division`, a `udiv` or `urem`, as one scalar: itself, or the value a vector
/// divisor repeats in every lane; null for another instruction, a constant divisor, or a vector
/// divisor whose lanes differ.
llvm::Value *runTimeUnsignedDivisor(const llvm::Instruction &division);

} // namespace kiln::cpu
