//===- stack_sizes.hpp - The stack a compiled work-group function uses ------===//
//
// The JIT's code generator emits a .stack_sizes section (TargetOptions::EmitStackSizeSection): the
// size of each function's frame. The work-group function's frame holds what does not fit in
// registers (spills, arrays the optimizer could not split); CL_KERNEL_SPILL_MEM_SIZE_INTEL
// reports it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace kiln::cpu {

/// The bytes of stack the functions of `object` (an ELF object file) use, added up; 0 when it
/// has no .stack_sizes section.
uint64_t stackBytesOf(llvm::StringRef object);

} // namespace kiln::cpu
