//===- grid_stride_turns.hpp - Grid-stride loops of neighbouring work-groups in step ===//
//
// A grid-stride loop (`for (i = get_global_id(0); i < n; i += get_global_size(0))`) reads, in
// each iteration, the work-group's few hundred bytes of a stretch as wide as the whole launch,
// then jumps to the next stretch. The CPU device runs a work-group's SIMD groups one after
// another and a worker's work-groups one after another, so each SIMD group alone walks the
// whole buffer reading one or two lines of every page: the hardware prefetchers, which follow a
// run within a page, fetch the rest of each page for nothing, and memory serves those short
// runs slowly (the suite's reduction read at half the native rate on 16 cores). Had the
// worker's SIMD groups and its neighbouring work-groups read each stretch together, every page
// would be read whole, in order, as a native loop over a thread's block reads it.
//
// So such a loop takes turns: every few iterations a SIMD group yields (a call of
// kWorkGroupTurnName on the loop's back edge); the work-item loops (barrier_regions.hpp) then
// run the group's other SIMD groups up to their turn, and the work-group function returns to
// the runtime, which runs the same turn of the next work-groups of the worker's chunk before it
// calls the first again (kernel_launch_job.cpp; WorkGroupParams::turn tells where each goes
// on). OpenCL orders no work-item before another outside barriers, so any such interleaving is
// one the kernel must allow.
//
// The loop's own values (its header's phis: the counter, the sums) cross the turn through
// per-SIMD-group variables stored and reloaded only at the turn, so the iterations between
// turns keep them in registers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"

#include <cstdint>

namespace kiln::cpu {

inline constexpr const char *kWorkGroupTurnName = "__kiln_work_group_turn";

/// Iterations of a loop between two turns: each turn stores and reloads the loop's values and
/// runs the dispatch of the work-item loops and a return to the runtime, which a few iterations
/// pay for; the fewer, the shorter the stretch of pages the worker's SIMD groups read apart.
inline constexpr unsigned kIterationsPerTurn = 8;

/// The loop property that marks a loop with a turn.
inline constexpr const char *kTakesTurnsMark = "kiln.grid_stride.takes_turns";

struct GridStrideTurns {
  /// Loops that got a turn.
  unsigned loops = 0;
  /// How many neighbouring work-groups should run in step for their loops to read whole pages
  /// together (1: the work-group alone reads them, or there are no turns).
  unsigned groupsInStep = 1;
};

/// Gives the innermost loops of the vectorized body of `function` (work-groups of `groupItems`
/// work-items, `simdWidth` a SIMD group) that read buffers with a far stride (strided_prefetch.hpp:
/// known at run time, or a constant of a few lines) a turn every few iterations.
GridStrideTurns insertGridStrideTurns(llvm::Function &function, uint64_t groupItems,
                                      unsigned simdWidth);

/// Whether `loop` got a turn (its copies in the work-item loops included).
bool takesTurns(const llvm::Loop &loop);

} // namespace kiln::cpu
