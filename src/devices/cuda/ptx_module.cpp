#include "devices/cuda/ptx_module.hpp"

#include "devices/cuda/launch_abi.hpp"

#include <array>
#include <cstdint>

// embed_device_runtime.S: libcudadevrt.a, or nothing when the build had no CUDA toolkit.
extern "C" const uint8_t kiln_cudadevrt_archive[];
extern "C" const uint64_t kiln_cudadevrt_size;

namespace kiln::cuda {
namespace {

/// The JIT's messages, for the build log.
struct JitLog {
  std::array<char, 8192> text{};
  CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {text.data(), reinterpret_cast<void *>(text.size() - 1)};
};

/// A linker session, destroyed with the image it made (load it first).
class LinkSession {
public:
  LinkSession(const CudaLibrary::Linker &linker, JitLog &log) : linker_(linker) {
    result_ = linker_.create(2, log.options, log.values, &state_);
  }
  ~LinkSession() {
    if (state_ != nullptr)
      linker_.destroy(state_);
  }
  LinkSession(const LinkSession &) = delete;
  LinkSession &operator=(const LinkSession &) = delete;

  CUresult created() const { return result_; }
  CUresult add(CUjitInputType type, const void *data, size_t size, const char *name) {
    return linker_.addData(state_, type, const_cast<void *>(data), size, name, 0, nullptr, nullptr);
  }
  CUresult complete(void **image, size_t *size) { return linker_.complete(state_, image, size); }

private:
  const CudaLibrary::Linker &linker_;
  CUlinkState state_ = nullptr;
  CUresult result_;
};

CUmodule linkWithDeviceRuntime(const CudaLibrary &cuda, const std::string &ptx,
                               std::string &error) {
  if (!cuda.linker || kiln_cudadevrt_size == 0) {
    error = "the program's kernels start kernels on the GPU, and this driver has no linker for "
            "CUDA's device runtime";
    return nullptr;
  }
  JitLog log;
  LinkSession session(*cuda.linker, log);
  void *image = nullptr;
  size_t imageSize = 0;
  CUresult result = session.created();
  if (result == CUDA_SUCCESS)
    result = session.add(CU_JIT_INPUT_PTX, ptx.c_str(), ptx.size() + 1, "program.ptx");
  if (result == CUDA_SUCCESS)
    result = session.add(CU_JIT_INPUT_LIBRARY, kiln_cudadevrt_archive, kiln_cudadevrt_size,
                         "libcudadevrt.a");
  if (result == CUDA_SUCCESS)
    result = session.complete(&image, &imageSize);
  CUmodule module = nullptr;
  if (result == CUDA_SUCCESS)
    result = cuda.moduleLoadDataEx(&module, image, 0, nullptr, nullptr);
  if (result != CUDA_SUCCESS) {
    error = "the CUDA driver cannot link the program with its device runtime: " +
            cuda.describe(result) + "\n" + log.text.data();
    return nullptr;
  }
  return module;
}

} // namespace

CUmodule loadPtxModule(const CudaLibrary &cuda, const std::string &ptx, std::string &error) {
  if (ptx.find(kDeviceLaunchFunction) != std::string::npos)
    return linkWithDeviceRuntime(cuda, ptx, error);
  JitLog log;
  CUmodule module = nullptr;
  CUresult result = cuda.moduleLoadDataEx(&module, ptx.c_str(), 2, log.options, log.values);
  if (result != CUDA_SUCCESS) {
    error = "the CUDA driver cannot load the program's PTX: " + cuda.describe(result) + "\n" +
            log.text.data();
    return nullptr;
  }
  return module;
}

} // namespace kiln::cuda
