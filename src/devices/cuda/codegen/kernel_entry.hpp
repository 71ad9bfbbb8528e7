//===- kernel_entry.hpp - PTX entries and the work-item primitives -------===//
//
// Each OpenCL kernel gets a PTX entry with the launch ABI of devices/cuda/launch_abi.hpp: it
// reads the kernel's arguments from the argument block and calls the kernel. Once everything
// is inlined into the entries, the primitives the builtin library is written on
// (builtins/kiln_primitives.h) become reads of CUDA's special registers and of the launch
// parameters.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::cuda {

/// Adds an entry for every kernel of `info`; every other function becomes internal and marked
/// for inlining.
llvm::Error addKernelEntries(llvm::Module &module, const compiler::ProgramInfo &info);

/// A PTX entry `name` for the kernel `info` describes, empty: its first parameter of
/// `firstParameterBytes` and its second the LaunchParams, both by value, and the attributes
/// that give the kernel's sub-group width and work-group shape.
llvm::Expected<llvm::Function *> createEntry(llvm::Module &module, const compiler::KernelInfo &info,
                                             llvm::StringRef name, uint64_t firstParameterBytes,
                                             llvm::Align firstParameterAlignment);

/// Ends an entry at `builder`: calls `kernel` with its arguments read from the argument block at
/// `block` (compiler/argument_block.hpp), whose __local arguments lie in the launch's dynamic
/// shared memory.
llvm::Error callKernel(llvm::IRBuilder<> &builder, llvm::Function &kernel,
                       const compiler::KernelInfo &info, llvm::Value *block);

/// Marks for inlining the builtin library's out-of-line paths (addKernelEntries keeps them as
/// calls) that the entries call at most a few times, once everything else is inlined: inlining
/// them there costs little code. True when it marked any (the inliner must then run again).
bool inlineRarelyCalledPaths(llvm::Module &module);

/// Replaces the primitives' calls in the entries (after inlining). Fails when a function other
/// than an entry is still called (recursion) or a primitive is used outside an entry.
llvm::Error lowerWorkItemPrimitives(llvm::Module &module);

} // namespace kiln::cuda
