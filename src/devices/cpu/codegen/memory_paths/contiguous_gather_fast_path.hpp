//===- contiguous_gather_fast_path.hpp - Vector loads for gathers that turn out consecutive ===//
//
// The vectorizer makes a gather or scatter of every access whose addresses it cannot prove
// consecutive across lanes. Many computed addresses are consecutive all the same, for most
// launches or most iterations: a bitonic sort's `id / d * 2 * d + id % d` is, whenever the
// distance d is at least the SIMD width. A gather costs a load per lane; a vector load costs
// one. This step gives each gather and scatter whose addresses arithmetic alone computes (see
// computed_address.hpp) a branch on "lane l's address is lane 0's plus l elements", taken to a
// (masked) vector load or store.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Adds the contiguity branch to the gathers and scatters of `function` with computed
/// addresses; returns how many. `windowedPermutes` (a target with AVX-512): those of 32-bit
/// elements get the window branch of windowed_gather_fast_path.hpp after it.
unsigned addContiguousGatherFastPaths(llvm::Function &function, bool windowedPermutes);

} // namespace kiln::cpu
