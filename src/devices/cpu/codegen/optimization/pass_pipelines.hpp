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
/// of unused functions when the program was built with -cl-opt-disable). `interleaveWorkItems`:
/// the module has a work-item loop that asks for unroll-and-jam (WorkItemLoopInputs::interleave),
/// and the pipeline runs that pass, which O3 leaves out. Returns whether that pass interleaved
/// the loop: it refuses when it cannot prove the work-items' memory accesses independent.
bool optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, bool optimize,
                    bool interleaveWorkItems = false);

} // namespace kiln::cpu
