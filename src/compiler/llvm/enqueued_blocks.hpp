//===- enqueued_blocks.hpp - Block kernels named by number ------------------===//
//
// Clang turns each block given to enqueue_kernel into a kernel of its own (named
// __<function>_block_invoke[_N]_kernel, taking the block literal and its __local pointers) and
// passes that kernel's address to __enqueue_kernel_* and the __get_kernel_*_impl queries. No
// device can start a kernel from an address the host never sees, so this step gives each such
// call the kernel's number instead: its index among the program's kernels (the order of
// ProgramInfo::kernels) plus one, which the records of device-side enqueue carry to the host
// (compiler/device_enqueue_format.hpp). The block kernels are marked, so that the program lists
// only the application's kernels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// Replaces the block kernel operand of every enqueue and block query call in `module` (an
/// executable being linked) by the kernel's number, and marks each block kernel.
void numberEnqueuedBlocks(llvm::Module &module);

/// Whether `kernel` is a block kernel numberEnqueuedBlocks marked.
bool isEnqueuedBlock(const llvm::Function &kernel);

} // namespace kiln::compiler
