// Makes a GPU's CUDA context current on the calling thread for a scope, and restores what was
// current before: Kiln runs on the application's threads, which may use CUDA themselves.
#pragma once

#include "devices/cuda/cuda_library.hpp"

namespace kiln::cuda {

class CurrentContext {
public:
  CurrentContext(const CudaLibrary &cuda, CUcontext context) : cuda_(cuda) {
    cuda_.ctxPushCurrent(context);
  }
  ~CurrentContext() {
    CUcontext previous = nullptr;
    cuda_.ctxPopCurrent(&previous);
  }
  CurrentContext(const CurrentContext &) = delete;
  CurrentContext &operator=(const CurrentContext &) = delete;

private:
  const CudaLibrary &cuda_;
};

} // namespace kiln::cuda
