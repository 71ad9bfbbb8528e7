// Loading a program's PTX into a CUDA context: with the driver's JIT alone, or, when its kernels
// start kernels themselves (they call the device runtime's launch function), with the driver's
// linker joining it to CUDA's device runtime, which libkiln.so carries.
#pragma once

#include "devices/cuda/cuda_library.hpp"

#include <string>

namespace kiln::cuda {

/// The module of `ptx` in the current context, or null with `error` set (the JIT's or the
/// linker's log).
CUmodule loadPtxModule(const CudaLibrary &cuda, const std::string &ptx, std::string &error);

} // namespace kiln::cuda
