//===- loop_unrolling.hpp - Unrolling counted loops for the GPU ----------===//
//
// A GPU hides latency with parallel warps; when a launch has few of them (a tiled n-body with
// 64-item groups, say), only independent instructions within one work-item keep the schedulers
// busy. LLVM's NVPTX cost model unrolls little: this step unrolls each small innermost loop by
// four (with a remainder loop where the trip count is known only at run time), so that ptxas
// can overlap the iterations' dependent chains and a loop's own branch costs less per
// iteration, as NVIDIA's own OpenCL compiler does. Loops the source gave unroll pragmas keep
// them; loops the pipeline already unrolled, and loops whose exit depends on what they compute
// (which have no trip count to unroll by), are left as they are.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln::cuda {

/// Adds to the passes at the optimization pipeline's start a step that marks every loop so that
/// what the pipeline's own unrolling leaves of it is not unrolled again.
void markPipelineUnrolls(llvm::FunctionPassManager &passes);

/// Runs after the optimization pipeline, with its clean-up.
void unrollCountedLoops(llvm::Module &module, llvm::TargetMachine &machine);

} // namespace kiln::cuda
