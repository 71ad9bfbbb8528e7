//===- control_linearization.hpp - Divergent control flow as masks --------===//
//
// Rewrites a work-item function so that, read as code for one SIMD group, every branch it still
// takes is taken the same way by all lanes. Each block gets a mask, an i1 that holds, per
// work-item, whether the work-item executes the block; the function's own code still reads as
// one work-item's (the widening step then turns each i1 into a vector of lanes).
//   - Blocks outside loops, and the blocks of each loop body, are put in one topological order
//     and chained: every block runs, under its mask. Phis become selects on the masks of their
//     incoming edges.
//   - A loop whose only exit is one uniform branch that every work-item of the body reaches
//     stays a loop with that branch ("uniform loop").
//   - Any other loop runs while some lane is still in it: a mask of live lanes, one accumulated
//     mask per exit, and the values each lane carries out of the loop, blended in as lanes
//     leave.
//   - A branch whose condition is the same in every lane, and whose sides nothing else enters
//     and leave only to meet again (a hammock), stays a branch: each side is a region of its
//     own, and only the side taken runs. Where the sides meet, phis receive what each side
//     hands on, so values the same in every lane stay so.
//   - Every loop is entered only when some lane reaches it, so inside a region of code the
//     mask of its entry is never empty.
// Phis where lanes that took different paths meet (a divergent branch's joins, and the joins
// whose incoming values are blended by the lanes' masks) are varying whatever their inputs.
// The kernel must be in loop-simplify and LCSSA form, with one return block and no switches.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

namespace kiln::cpu::vectorizer {

struct LinearizedControl {
  /// The mask of every block of the function (an i1 per work-item).
  llvm::DenseMap<const llvm::BasicBlock *, llvm::Value *> blockMask;
  /// Blocks whose mask is their region's entry mask: never empty when the block runs, so
  /// uniform loads and stores there need no mask.
  llvm::DenseSet<const llvm::BasicBlock *> fullBlocks;
};

/// `activeLanes`: the function's entry mask, an i1 computed at the start of the entry block.
llvm::Expected<LinearizedControl> linearizeControlFlow(llvm::Function &function, ShapeSeeds seeds,
                                                       llvm::Value *activeLanes);

} // namespace kiln::cpu::vectorizer
