//===- loop_unrolling.hpp - Unrolling counted loops for the GPU ----------===//
//
// A GPU hides latency with parallel warps; when a launch has few of them (a tiled n-body with
// 64-item groups, say), only independent instructions within one work-item keep the schedulers
// busy. LLVM's NVPTX cost model unrolls little: this step unrolls each small innermost loop of
// a known trip count by four, so that ptxas can overlap the iterations' dependent chains, as
// NVIDIA's own OpenCL compiler does. Loops the source gave unroll pragmas keep them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln::cuda {

/// Runs after the optimization pipeline, with its clean-up.
void unrollCountedLoops(llvm::Module &module, llvm::TargetMachine &machine);

} // namespace kiln::cuda
