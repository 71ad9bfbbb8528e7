//===- fast_float_math.hpp - PTX's fast instructions where OpenCL allows -===//
//
// The builtin library computes rsqrt as 1/sqrt(x) with both operations correctly rounded,
// which on the CPU costs two instructions. In PTX those are two long instruction sequences,
// while OpenCL C allows rsqrt 2 ulp: on the GPU, the library's rsqrt and native_rsqrt of floats
// are PTX's rsqrt.approx, which CUDA documents as within 2 ulp (its rsqrtf), and so is an
// application's 1/sqrt(x) where OpenCL lets the division and square root be inexact (their
// 2.5 and 3 ulp allow more).
//
// An application's sqrt of floats, where OpenCL allows 3 ulp, and native_sqrt are PTX's
// sqrt.approx (CUDA's sqrtf without -prec-sqrt) instead of the correctly rounded sqrt.rn, a
// long instruction sequence; under -cl-fp32-correctly-rounded-divide-sqrt they stay sqrt.rn.
//
// Other float divisions that OpenCL lets be inexact (2.5 ulp) use PTX's div.full.f32 (2 ulp over
// the full range, subnormals kept) instead of the correctly rounded div.rn.f32, a long
// subroutine; under -cl-fp32-correctly-rounded-divide-sqrt they stay div.rn.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cuda {

/// Replaces the library's rsqrt, native_rsqrt and native_sqrt of floats and the application's
/// inexact sqrt calls of floats; before inlining.
void useFastRoots(llvm::Module &module);

/// Replaces the applications' inexact divisions and 1/sqrt(x); after inlining.
void useFastFloatMath(llvm::Module &module);

} // namespace kiln::cuda
