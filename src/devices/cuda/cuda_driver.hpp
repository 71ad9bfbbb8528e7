// The NVIDIA GPU device: programs compiled to PTX by the compiler library and loaded with the
// CUDA driver API; memory objects in CUDA managed memory, which the host and the GPU address at
// the same address (the runtime's memory commands run on it as on host memory, and the pages
// migrate to the GPU when its kernels touch them).
#pragma once

#include "runtime/device_driver.hpp"

#include <memory>
#include <vector>

namespace kiln {
class CompilerLoader;
}

namespace kiln::cuda {

/// One driver per GPU the CUDA driver reports, their programs compiled by the "cuda" code
/// generator of `compiler`; none when there is no NVIDIA driver.
std::vector<std::unique_ptr<DeviceDriver>> createCudaDrivers(CompilerLoader &compiler);

} // namespace kiln::cuda
