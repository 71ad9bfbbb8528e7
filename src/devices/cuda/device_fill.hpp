// clEnqueueFillBuffer on a GPU: the pattern is written by the GPU, in stream order, where the
// memory is. (Filled by the host, a buffer in managed memory would move to the host page by page
// and back to the GPU at its next kernel.)
#pragma once

#include "devices/cuda/cuda_library.hpp"

#include <cstddef>
#include <mutex>
#include <span>

namespace kiln::cuda {

class DeviceFill {
public:
  DeviceFill(const CudaLibrary &cuda, CUcontext context) : cuda_(cuda), context_(context) {}
  ~DeviceFill();
  DeviceFill(const DeviceFill &) = delete;
  DeviceFill &operator=(const DeviceFill &) = delete;

  /// Puts the fill of `size` bytes at `destination` with copies of `pattern` (1 to 128 bytes, a
  /// power of two that divides `size` and the destination's alignment) on `stream`, the GPU's
  /// context being current. False when the driver refuses it.
  bool fill(std::byte *destination, size_t size, std::span<const std::byte> pattern,
            CUstream stream);

private:
  bool fillWithKernel(std::byte *destination, size_t size, std::span<const std::byte> pattern,
                      CUstream stream);
  /// The fill kernel, loaded on the first fill that needs it; null when it cannot be.
  CUfunction fillKernel();

  const CudaLibrary &cuda_;
  CUcontext context_;
  std::once_flag loadOnce_;
  CUmodule module_ = nullptr;
  CUfunction kernel_ = nullptr;
};

} // namespace kiln::cuda
