//===- indirect_prefetch.hpp - Prefetching the targets of indexed loads ahead ===//
//
// A loop that reads `x[index[k]]` (a CSR matrix's columns, a graph's edge lists, a gather
// table) waits on a cache miss for every random `x` it reads: the hardware prefetchers follow
// `index`, which walks memory in order, but cannot guess where its values point. This step
// reads `index` a fixed distance ahead of the loop and prefetches the element of `x` that
// entry will select, so the miss overlaps the work in between instead of stalling it.
//
// Reading `index` ahead may pass the end of the loop (harmless: the loop after it, or the
// next work-item's, usually goes on there) and of the buffer. Where `index` is a buffer
// argument and every buffer of the launch has read slack past its end (Kiln's own storage has,
// CL_MEM_USE_HOST_PTR memory has not: WorkGroupShape::buffersHaveReadSlack), the read ahead
// stays within the slack. Elsewhere it stays within the 4 KiB page of the entry the loop reads
// in the same iteration: a page one address of which is readable is readable throughout,
// whatever the buffer's size or where its memory came from. The value read there is only ever
// used as a prefetch address, which never faults.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Adds the read-ahead and prefetch to the scalar indexed loads of buffer memory in the
/// innermost loops of `function`; returns how many. `buffersHaveReadSlack`: see
/// WorkGroupShape.
unsigned addIndirectPrefetches(llvm::Function &function, bool buffersHaveReadSlack);

} // namespace kiln::cpu
