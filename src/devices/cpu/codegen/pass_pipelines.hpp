//===- pass_pipelines.hpp - The optimization pipelines of the CPU JIT ----===//
#pragma once

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln::cpu {

/// Promotes private variables to registers and cleans up after inlining, before the body is
/// split at barriers: fewer values then need per-work-item storage. Leaves the control flow
/// alone so that no barrier is duplicated or merged.
void simplifyKernelBody(llvm::Function &function, llvm::TargetMachine &machine);

/// Brings a work-item body into the form the work-item vectorizer reads: OpenCL vectors split
/// into their components, switches as branches, loops with preheaders, one latch, dedicated
/// exits and LCSSA phis.
void prepareForVectorization(llvm::Function &function, llvm::TargetMachine &machine);

/// The whole-module pipeline run on the finished work-group functions (O3, or only the removal
/// of unused functions when the program was built with -cl-opt-disable).
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, bool optimize);

} // namespace kiln::cpu
