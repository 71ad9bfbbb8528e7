//===- spin_loop_yields.hpp - Waiting sub-groups let the others run ------===//
//
// The sub-groups of a work-group run on one thread, one after another between barriers
// (barrier_regions.hpp). A sub-group that waits in a loop for a value another sub-group of its
// work-group writes (a flag, a lock, a counter) would wait forever if nothing else ran: the
// extension cl_khr_subgroups promises that sub-groups make independent forward progress, so
// the wait must let the others run.
//
// A loop can wait for another sub-group only if whether it goes round again depends on memory
// that sub-group may write while the loop runs: on an atomic load, an atomic read-modify-write
// (but a counter's add of a non-zero amount, a ticket, goes on whatever others do), a
// compare-exchange whose expected value the loop did not read from the same place (a lock's
// "0"), or a volatile load of global or local memory (the OpenCL 1.x way to spin). Each such
// loop gets a yield on its way round: a call of kSubGroupYieldName, where the work-item loops
// end the sub-group's turn and run the others (barrier_regions.hpp) before it tries again. A
// compare-exchange that retries an update computed from what the loop read (an atomic float
// add written with atomic_cmpxchg) does not wait for anyone: it fails only when another
// work-item's update succeeded.
//
// The loops are judged on the scalar kernel, where these patterns are plain to see; the
// vectorizer then copies each read per lane, and the yields go on the loops of its result.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

inline constexpr const char *kSubGroupYieldName = "__kiln_sub_group_yield";

/// Marks the reads on which a loop of the (not yet vectorized) `function` may wait for another
/// sub-group; returns whether there is one. Such a kernel's SIMD groups must not be wider than
/// its sub-groups: lanes run in step, so a sub-group waiting in the same vector as the one it
/// waits for would hold it up.
bool markWaitingReads(llvm::Function &function);

/// After vectorization, where markWaitingReads found a loop: puts a call of kSubGroupYieldName on
/// every back edge of every loop whose exit depends on a read markWaitingReads marked (the
/// vectorizer's lane copies of a read keep its mark), and removes the marks; returns how many loops
/// got one.
unsigned insertSpinLoopYields(llvm::Function &function);

} // namespace kiln::cpu
