//===- float_round_trips.hpp - Integer results of float computations on small integers ===//
//
// Kernels often take an integer of a few bits through float and back: a histogram reads a
// normalized RGBA8 texel (the byte divided by 255) and turns it back into a byte
// (`convert_uint_rte(v * 255.0f)`), image code clamps and rounds scaled channels. Each step is
// exact IEEE arithmetic, so the compiler may not simplify `(b / 255.0f) * 255.0f` to `b`, though
// for every byte it is: a correctly rounded division, a product, a rounding to an integer, a
// conversion, on each of three channels of each pixel.
//
// This step evaluates such a computation, from the conversion of an integer of at most 12
// significant bits to float up to a conversion back to an integer (or a comparison), for every
// value the integer can take, with LLVM's constant folder (IEEE single precision, round to
// nearest, as the CPU computes it). Where the results are the integer itself, a constant, or
// another affine function of it, the computation is replaced by that integer arithmetic; where
// anything in it is not exact arithmetic on constants (a load, a call, a subnormal value, a
// conversion out of range), it stays as it is.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Replaces the float round trips of small integers in `function` whose every result is an
/// affine function of the integer (see above); returns how many.
unsigned foldFloatRoundTripsOfSmallIntegers(llvm::Function &function);

} // namespace kiln::cpu
