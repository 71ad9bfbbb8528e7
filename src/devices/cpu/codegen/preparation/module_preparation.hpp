//===- module_preparation.hpp - Retarget a SPIR64 module to the host ------===//
//
// The front end compiles OpenCL C for spir64; the CPU device runs it on the host. This step
// switches the module's target, gives every function the C calling convention, and marks all
// non-kernel code for inlining (work-group functions need every barrier visible in one body).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln::cpu {

void retargetModuleToHost(llvm::Module &module, const llvm::Triple &triple,
                          const llvm::DataLayout &layout);

/// An error naming the first function with an `asm` statement: its text is in some other
/// device's assembly language (PTX, in programs written for NVIDIA's driver), never the host's.
llvm::Error rejectInlineAssembly(const llvm::Module &module);

} // namespace kiln::cpu
