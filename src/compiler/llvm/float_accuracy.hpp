//===- float_accuracy.hpp - OpenCL's accuracy marks on float math --------===//
//
// OpenCL C lets a float division be within 2.5 ulp and sqrt within 3 ulp, unless a program is
// built with -cl-fp32-correctly-rounded-divide-sqrt. Clang says so with !fpmath marks on the
// divisions and the sqrt calls; the SPIR-V environment gives OpFDiv and sqrt the same accuracy,
// and the translator leaves the marks out, so programs from SPIR-V get them here. Code generators
// choose instructions by the marks (the GPU's div.full and sqrt.approx), so that a program from
// SPIR-V computes what the same program from source does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// The accuracy OpenCL C allows a float division and a float sqrt, in ulp.
inline constexpr float kInexactDivisionUlps = 2.5f;
inline constexpr float kInexactSqrtUlps = 3.0f;

/// Whether `call` calls the builtin library's sqrt of float or float vectors.
bool isFloatSqrtCall(const llvm::CallInst &call);

/// Marks the float divisions and sqrt calls of `module` with the accuracy OpenCL C allows them.
void markInexactFloatMath(llvm::Module &module);

} // namespace kiln::compiler
