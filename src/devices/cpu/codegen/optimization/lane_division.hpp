//===- lane_division.hpp - Lanes divided by one divisor --------------------===//
//
// x86 has no vector integer division: a division of 16 lanes becomes 16 scalar divisions of
// some 25 cycles each. Where the lanes share their divisor (a vectorized division by a value the
// same in every work-item of the SIMD group: a buffer's length, a ring's capacity, a row width
// read from memory), one scalar division finds a multiplier and two shifts (Granlund and
// Montgomery, "Division by invariant integers using multiplication", 1994, figure 4.1) and the
// lanes multiply: a vector multiply of the 32-bit halves, two shifts, an add and a subtract.
// Unsigned divisions and remainders of 32-bit lanes, where the vectorizer makes most of them
// (positions, indices and counts in uint). Runs after uniform_division.hpp, whose branch on a
// power-of-two divisor keeps the original division on its other side: that one becomes this.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Rewrites the unsigned divisions and remainders of vectors of 32-bit integers in `function`
/// whose divisor repeats one value in every lane; returns how many.
unsigned multiplyLanesByReciprocals(llvm::Function &function);

} // namespace kiln::cpu
