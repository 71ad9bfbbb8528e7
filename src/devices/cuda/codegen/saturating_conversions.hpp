//===- saturating_conversions.hpp - Float-to-integer conversions as PTX's cvt -===//
//
// On the GPU the builtin library converts floats to integers with LLVM's saturating conversions
// (src/builtins/conversions.cl): NaN becomes 0, and a value beyond the integer type's range that
// range's nearest bound. PTX's cvt from a float or double to a 32- or 64-bit integer clamps so
// itself, and from a float to 32 bits it also converts NaN to 0, but NVPTX's code generator
// expands the intrinsic into compares and selects around a cvt: eight instructions where one
// does (a third of the image histogram's loop). Each such conversion becomes the NVVM intrinsic
// of one cvt, whose rounding (cvt.rni, .rmi, .rpi, .rzi) takes in the rint, floor, ceil or trunc
// the value went through, as CUDA's __float2int_rn and its kin do; from a double or to 64 bits,
// where the GPU converts NaN to the integer 100...0, a select gives 0 for NaN. Conversions to 8
// or 16 bits stay with NVPTX (two clamps and a cvt).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cuda {

/// Replaces the saturating conversions of floats and doubles to 32- and 64-bit integers in
/// `module` by PTX's cvt; after optimization, when the roundings before them are intrinsics.
void lowerSaturatingConversions(llvm::Module &module);

} // namespace kiln::cuda
