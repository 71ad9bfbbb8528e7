//===- strided_prefetch.hpp - Prefetching loads that stride far ---------===//
//
// A grid-stride loop (`for (i = get_global_id(0); i < n; i += get_global_size(0))`) reads a few
// lines, then jumps by the whole launch's width: tens of KiB, a new page every iteration. The
// hardware prefetchers learn strides within a page only, so every iteration waits on memory.
// The same holds for a walk down a matrix's column whose width is a kernel argument. This step
// prefetches, a fixed number of iterations ahead (one turn in a loop that takes turns, see
// work_group/grid_stride_turns.hpp), the lines such a load will read.
//
// It takes loads whose address is computed from the loop's counter alone, where the counter
// advances by a loop-invariant amount that is not a constant, or by a constant that moves the
// address by at least a few lines: a loop over a work-group's range with
// `i += get_local_size(0)` strides by a constant once the CPU device has specialized the local
// size, and reads as a grid-stride loop does. (Shorter constant strides are left to the
// hardware.) Loops that compute long per line they read, such as a
// histogram's per-lane increments, are left alone: the benchmark suite's histogram ran slower
// with prefetches, not faster. A prefetch never faults, so running past the loop's or
// the buffer's end is safe; its cost is the lines fetched for nothing, at most as many as the
// loop reads when it runs fewer iterations than the distance ahead.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace kiln::cpu {

/// Adds prefetches ahead of the loads of buffer memory, in the innermost loops of `function`,
/// that stride far (known only at run time, or a constant of a few lines or more); returns how
/// many loads got them.
unsigned addStridedPrefetches(llvm::Function &function);

/// Whether `loop` reads buffer memory at addresses that stride far (the loads addStridedPrefetches
/// looks for, whether or not it would prefetch them), before the loop's invariant code has left it:
/// `isLaunchConstant` tells the calls that return the same value wherever a work-item makes them
/// (get_global_size(0)).
bool readsWithFarStride(const llvm::Loop &loop,
                        llvm::function_ref<bool(const llvm::CallInst &)> isLaunchConstant);

/// The bytes those loads of `loop` read in one iteration (of up to four such loads), 0 when it
/// has none.
uint64_t farStrideBytes(const llvm::Loop &loop,
                        llvm::function_ref<bool(const llvm::CallInst &)> isLaunchConstant);

} // namespace kiln::cpu
