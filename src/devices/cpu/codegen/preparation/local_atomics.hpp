//===- local_atomics.hpp - Atomics on local memory as plain accesses -----===//
//
// The work-items of a work-group run one after another on one thread, and the group's local
// memory belongs to that thread while the group runs: no other thread ever touches it. An
// atomic operation on local memory therefore needs no locked instruction; a plain load and
// store do the same, in the order the work-items run, at a fraction of the cost (a locked
// instruction costs tens of cycles even uncontended), and let the optimizer keep a local
// counter in a register across a work-item loop.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Marks the atomics of `function` whose pointer visibly points into local memory. Copies of an
/// instruction keep the mark, so the work-item vectorizer may split an atomic into one per lane
/// (whose pointers no longer show where they come from) in between.
void markLocalAtomics(llvm::Function &function);

/// Turns the marked atomic loads, stores, read-modify-writes and compare-exchanges in `function`
/// whose pointer points into local memory into plain accesses. Mark them once everything is inlined
/// and simplified, before full optimization (see namedAddressSpaceOf).
void makeLocalAtomicsPlain(llvm::Function &function);

} // namespace kiln::cpu
