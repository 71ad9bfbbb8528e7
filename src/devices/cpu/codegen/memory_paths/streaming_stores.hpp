//===- streaming_stores.hpp - Whole-vector stores that bypass the caches ===//
//
// A plain store to a line that is not in the cache first reads the line from memory (write
// allocate), so a kernel that streams its output through memory moves each written byte twice.
// A non-temporal store (MOVNTPS and kin) writes whole lines without reading them: STREAM's
// triad moves a third less, and ran 25-35% faster on this project's Zen 5 machine. It only pays
// when the data is not read again while it would still be in the cache, which the runtime
// judges at launch from the size of the buffers the kernel may write (WorkGroupShape).
//
// Non-temporal stores are weakly ordered: they are not ordered with later stores to other
// addresses. Within a work-group that is harmless (one thread runs it in program order), and
// the runtime fences the stores of each chunk of work-groups before it reports them done (a
// fence per work-group waits for every store in flight and cost a fifth of the triad's speed).
// Kernels that order memory between work-groups themselves (atomics, fences) keep ordinary
// stores.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Whether `function` may use non-temporal stores: it has no atomic operations, no fences and
/// no calls that could order memory.
bool mayStreamStores(const llvm::Function &function);

/// Gives each plain vector store to global memory of 32 bytes or of whole 64-byte lines a path
/// that stores it with a non-temporal hint when the address is aligned (only aligned stores
/// become MOVNT instructions); returns how many. The caller must run a store fence after the
/// function, before anything else may read what it wrote.
unsigned addStreamingStores(llvm::Function &function);

} // namespace kiln::cpu
