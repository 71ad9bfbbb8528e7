//===- fast_float_math.hpp - PTX's fast instructions where OpenCL allows -===//
//
// The builtin library computes rsqrt as 1/sqrt(x) with both operations correctly rounded,
// which on the CPU costs two instructions. In PTX those are two long instruction sequences,
// while OpenCL C allows rsqrt 2 ulp: this step computes 1/sqrt(x) of floats with PTX's
// rsqrt.approx refined by one Newton-Raphson step (about 1 ulp) instead.
//
// Divisions stay correctly rounded (div.rn): PTX's faster div.full is within OpenCL's 2.5 ulp,
// but whether it keeps subnormal results, which a device reporting CL_FP_DENORM must, is to be
// checked on the conformance suite's division tests first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cuda {

void useFastFloatMath(llvm::Module &module);

} // namespace kiln::cuda
