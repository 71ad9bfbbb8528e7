//===- libdevice_math.hpp - Math functions from CUDA's libdevice ---------===//
//
// The builtin library computes the hard math functions with LLVM's intrinsics (llvm.sin,
// llvm.pow, ...) and a few C library functions (host_math_functions.def). The NVPTX backend
// selects neither, except for the operations PTX has exactly (sqrt, fma, rounding, min/max):
// this step calls libdevice's __nv_* functions instead, element by element for vectors, and
// links the ones called. libdevice's functions are within CUDA's documented error bounds, which
// are within OpenCL's for every function the library calls them for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::cuda {

llvm::Error linkLibdeviceMath(llvm::Module &module);

} // namespace kiln::cuda
