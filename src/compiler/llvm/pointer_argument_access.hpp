// Whether a kernel only writes through a pointer argument: its output buffers, which a device may
// store past the caches (they hold nothing the kernel reads back), unlike a buffer it updates in
// place, whose lines its own reads have just brought into the cache.
#pragma once

#include "llvm/IR/Argument.h"

namespace kiln::compiler {

/// True when every memory access through `pointer` (and the pointers derived from it, also in
/// the functions of the module it is passed to) is a store, and there is one. False when any may
/// read, and whenever the analysis cannot tell: the pointer stored to memory, converted to an
/// integer, passed to a function without a body.
bool isOnlyWrittenThrough(const llvm::Argument &pointer);

} // namespace kiln::compiler
