// What clGetDeviceInfo reports for an NVIDIA GPU, read from the CUDA driver.
#pragma once

#include "devices/cuda/cuda_library.hpp"
#include "runtime/objects/device_info.hpp"

namespace kiln::cuda {

/// The properties of one GPU that the driver needs besides DeviceInfo.
struct GpuProperties {
  unsigned smVersion = 0;           // 90 for compute capability 9.0
  size_t maxDynamicSharedBytes = 0; // per block, with the opt-in
  size_t maxBlockDepth = 0;         // threads along a block's z axis (64)
};

DeviceInfo describeGpu(const CudaLibrary &cuda, CUdevice device, GpuProperties &properties);

} // namespace kiln::cuda
