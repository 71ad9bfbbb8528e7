//===- chain_interleaving.hpp - Jammed work-items' chains side by side ----===//
//
// A kernel that computes on whole vector registers runs several work-items per iteration of its
// work-item loop (unroll-and-jam). The jam leaves each work-item's inner loop body one after the
// other: clpeak's int8 body is 8 runs of 32 dependent multiply-adds, over 500 instructions, more
// than the processor's reorder window holds, so only two or three chains overlap and the others
// wait. Ordering each block by depth (how many dependent instructions lead to an instruction)
// puts the work-items' steps side by side, so that the chains run together whatever the window.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Reorders the instructions of `function`'s innermost loop blocks that neither touch memory nor
/// call anything but intrinsics by their depth in the block's dependences (stable, so an order
/// the dependences fix is kept). Returns whether any block changed.
bool interleaveIndependentChains(llvm::Function &function);

} // namespace kiln::cpu
