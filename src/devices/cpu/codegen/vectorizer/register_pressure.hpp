//===- register_pressure.hpp - How many lanes a kernel's registers hold ---===//
//
// The SIMD group's width is chosen per kernel. Wider groups hide the latency of dependent
// arithmetic (a chain of FMAs in one 16-lane vector waits 4 cycles per step; four independent
// vectors keep both FMA units busy), but every varying value then takes more vector registers,
// and spills cost more than latency. The estimate: the most 32-bit lane values that are live at
// once, counting only varying values (uniform and strided ones stay in scalar registers).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"

namespace kiln::cpu::vectorizer {

/// Whether `value` is a fused multiply-add (llvm.fma, or llvm.fmuladd, which OpenCL C's mad and
/// contracted a * b + c become).
inline bool isMultiplyAdd(const llvm::Value *value) {
  const auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(value);
  return intrinsic && (intrinsic->getIntrinsicID() == llvm::Intrinsic::fma ||
                       intrinsic->getIntrinsicID() == llvm::Intrinsic::fmuladd);
}

/// The largest number of varying values live at one point of `function`, each counted in
/// 32-bit units (a double or a pointer counts twice; masks, which live in mask registers, not
/// at all).
unsigned peakVaryingPressure(llvm::Function &function, const ShapeAnalysis &shapes);

} // namespace kiln::cpu::vectorizer
