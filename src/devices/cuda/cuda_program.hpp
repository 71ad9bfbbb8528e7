// A program's PTX loaded into a GPU's CUDA context, and its kernels.
#pragma once

#include "compiler/program_info.hpp"
#include "devices/cuda/cuda_library.hpp"
#include "runtime/device_driver.hpp"

#include <array>
#include <map>
#include <memory>
#include <string>

namespace kiln::cuda {

class CudaKernel final : public DeviceKernel {
public:
  CudaKernel(CUfunction function, DeviceKernelInfo info, const compiler::KernelInfo &kernel,
             const std::vector<compiler::PrintfCallSite> *printfCalls);
  DeviceKernelInfo info() const override { return info_; }
  /// The per-thread local memory of the compiled kernel (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES).
  cl_ulong spillMemorySize() const override { return info_.privateMemSize; }
  CUfunction function() const { return function_; }
  /// The kernel's own __local variables (static shared memory).
  uint64_t staticLocalBytes() const { return staticLocalBytes_; }
  /// The program's printf calls when this kernel may call printf, else null.
  const std::vector<compiler::PrintfCallSite> *printfCalls() const { return printfCalls_; }

private:
  CUfunction function_;
  DeviceKernelInfo info_;
  uint64_t staticLocalBytes_;
  const std::vector<compiler::PrintfCallSite> *printfCalls_;
};

/// What loading a program needs to know of its GPU.
struct ProgramLoadLimits {
  size_t maxDynamicSharedBytes = 0;
  std::array<size_t, 3> maxWorkItemSizes{};
};

class CudaProgram final : public DeviceProgram {
public:
  /// Loads `ptx` (compiled from a program described by `info`) with the driver's JIT, linked
  /// with CUDA's device runtime where its kernels start kernels (ptx_module.hpp). Null with
  /// `error` set (the JIT's log) on failure.
  static std::unique_ptr<CudaProgram> load(std::shared_ptr<const CudaLibrary> cuda,
                                           CUcontext context, std::string ptx,
                                           const compiler::ProgramInfo &info,
                                           const ProgramLoadLimits &limits, std::string &error);
  ~CudaProgram() override;

  const DeviceKernel *kernel(std::string_view name) const override;
  /// The PTX: the on-disk cache keeps it, and the driver's own cache keeps what its JIT makes.
  std::vector<std::byte> serialize() const override;

private:
  CudaProgram(std::shared_ptr<const CudaLibrary> cuda, CUcontext context, CUmodule module,
              std::string ptx);
  /// Writes the module's table of block kernel limits (launch_abi.hpp), where it has one.
  bool fillBlockKernelLimits(const compiler::ProgramInfo &info,
                             const std::array<size_t, 3> &maxWorkItemSizes);

  std::shared_ptr<const CudaLibrary> cuda_;
  CUcontext context_;
  CUmodule module_;
  std::string ptx_;
  std::vector<compiler::PrintfCallSite> printfCalls_;
  std::map<std::string, CudaKernel, std::less<>> kernels_;
};

} // namespace kiln::cuda
