//===- reciprocal_division.hpp - Exact division of small integers by constants ----===//
//
// A float division is a long-latency instruction that one port executes a few lanes at a time:
// reading a normalized image channel (`c / 255.0f`, builtins/image.cl) or normalizing bytes by
// hand costs a kernel more than the rest of its arithmetic. The CPU's quotients are correctly
// rounded (what -cl-fp32-correctly-rounded-divide-sqrt asks for, and what image reads are checked
// against), so the reciprocal alone will not do: `c * (1.0f / 255)` differs from `c / 255.0f` for
// 126 of the 256 bytes. One correction step does: with r the reciprocal rounded, q = x * r, and
// the residual e = fma(-q, d, x), which a fused multiply-add gives exactly, fma(e, r, q) is the
// correctly rounded quotient (Markstein's correction). This step uses it where the dividend is an
// integer of a few bits converted to float and the divisor a constant, after checking every
// value the dividend can take, so what it changes is exact.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Rewrites the float divisions of `function` whose dividend is a small integer converted to
/// float and whose divisor a constant as a multiplication and two fused multiply-adds, where
/// that gives the same quotient for every value of the dividend. Only for a target with fused
/// multiply-adds in hardware. Returns how many divisions it rewrote.
unsigned divideSmallIntegersByReciprocal(llvm::Function &function);

} // namespace kiln::cpu
