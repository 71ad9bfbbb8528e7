//===- chain_interleaving.hpp - Jammed work-items' chains side by side ----===//
//
// A kernel that computes on whole vector registers runs several work-items per iteration of its
// work-item loop (unroll-and-jam). The jam leaves each work-item's inner loop body after the
// other's: clpeak's int8 body is 7 runs of 32 dependent integer operations, 224 instructions
// that wait on each other. The out-of-order core only starts an operation whose inputs are
// ready, and the operations waiting for theirs fill its scheduler after two or three
// work-items, so only that many chains overlap where 7 were meant to.
//
// Ordering the block by level puts the work-items' steps side by side. An instruction's level
// is the number of long-latency operations (multiplications, divisions, floating-point
// additions, FMAs and other intrinsics) on the longest path that leads to it in the block. All
// the work-items' steps of one level come before the next level's, and within a level each
// work-item's instructions stay together in their order: the short operations that feed a
// step (an addition before a multiplication, a negation before an FMA) sit right before it, so
// their results die at once and the interleaved order needs no more registers than the jammed
// one. (Ordering by plain depth instead separated each negation from its FMA: every
// work-item's negated value was live at once, and a float16 kernel that already had one value
// too many for the registers ran at half speed.) Side by side, every work-item's values are
// live at every step, so the vectorizer asks for this order only where they all fit in the
// vector registers (WorkItemVectorization::chainsSideBySide).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Reorders the instructions of `function`'s innermost loop blocks that neither touch memory nor
/// call anything but intrinsics by level (stable, so each work-item's order within a level is
/// kept). Returns whether any block changed.
bool interleaveIndependentChains(llvm::Function &function);

} // namespace kiln::cpu
