//===- block_kernel_limits.hpp - The block kernels' limits in device memory -===//
//
// What a kernel asks of a block kernel before enqueuing it (its largest work-group and the
// others, compiler::BlockKernelLimits) the arena holds in the host's memory, a bus crossing away
// from the GPU, and every level of a recursive enqueue asks again. The GPU reads them instead
// from a table in its own memory, a global of the module the driver fills when it loads it
// (launch_abi.hpp, kBlockKernelLimitsSymbol).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/IR/Module.h"

namespace kiln::cuda {

/// Adds the table and defines the library's primitive that reads it, if the module calls it
/// (before inlining).
void addBlockKernelLimitsTable(llvm::Module &module, const compiler::ProgramInfo &info);

} // namespace kiln::cuda
