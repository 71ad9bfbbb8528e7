//===- argument_block_reads.hpp - A kernel's arguments read from the block -===//
//
// Both code generators start a kernel's entry the same way: for each parameter of the kernel,
// the address of its slot in the argument block (compiler/argument_block.hpp), then the read
// that gives the parameter's value. Where that value comes from is the same for every device;
// how each kind of argument is read differs (the alignment a read may assume, where __local
// memory is), so each device gives that part.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace kiln::compiler {

/// Reads one argument: `slot` is the address of `arg`'s place in the block, `parameter` the
/// kernel's parameter it becomes.
using ArgumentSlotRead = llvm::function_ref<llvm::Expected<llvm::Value *>(
    const KernelArgInfo &arg, llvm::Argument &parameter, llvm::Value *slot)>;

/// The values of `kernel`'s parameters, read from the argument block at `block` with `read`,
/// in parameter order. Fails when the kernel's parameters and `info`'s arguments differ in
/// number, or when `read` fails.
llvm::Expected<llvm::SmallVector<llvm::Value *, 8>>
readKernelArguments(llvm::IRBuilder<> &builder, llvm::Function &kernel, const KernelInfo &info,
                    llvm::Value *block, ArgumentSlotRead read);

} // namespace kiln::compiler
