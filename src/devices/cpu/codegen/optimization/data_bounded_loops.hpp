//===- data_bounded_loops.hpp - No run-time unrolling of loops bounded by data ===//
//
// LLVM unrolls a loop whose trip count is known only at run time by a factor of 8 or so on
// the Zen cores, behind a remainder loop that runs the odd iterations first. That pays for
// long loops. A loop whose bounds a work-item reads from a buffer (a CSR row, a node's edge
// list, a bucket) is usually short and of a different length in every work-item: unrolled, it
// costs two mispredicted branches per work-item (the remainder's count and the main loop's
// end) instead of one, and the extra code buys nothing. Measured on the CSR SpMV benchmark
// (rows of 8 to 40 entries): 7% faster kept rolled.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Marks every loop of `function` whose exit test depends on a value loaded from global,
/// constant or local memory as not to be unrolled at run time (LLVM's
/// `llvm.loop.unroll.runtime.disable`); returns how many. Unrolling by a constant trip count
/// is unaffected.
unsigned keepDataBoundedLoopsRolled(llvm::Function &function);

} // namespace kiln::cpu
