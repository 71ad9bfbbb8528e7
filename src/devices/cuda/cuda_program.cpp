#include "devices/cuda/cuda_program.hpp"

#include "devices/cuda/current_context.hpp"
#include "devices/cuda/launch_abi.hpp"
#include "devices/cuda/ptx_compiler.hpp"

#include <array>

namespace kiln::cuda {
namespace {

int functionAttribute(const CudaLibrary &cuda, CUfunction function,
                      CUfunction_attribute attribute) {
  int value = 0;
  return cuda.funcGetAttribute(&value, attribute, function) == CUDA_SUCCESS ? value : 0;
}

} // namespace

CudaKernel::CudaKernel(CUfunction function, DeviceKernelInfo info,
                       const compiler::KernelInfo &kernel,
                       const std::vector<compiler::PrintfCallSite> *printfCalls)
    : function_(function), info_(info), staticLocalBytes_(kernel.staticLocalMemSize),
      printfCalls_(printfCalls) {}

CudaProgram::CudaProgram(std::shared_ptr<const CudaLibrary> cuda, CUcontext context,
                         CUmodule module, std::string ptx)
    : cuda_(std::move(cuda)), context_(context), module_(module), ptx_(std::move(ptx)) {}

CudaProgram::~CudaProgram() {
  CurrentContext current(*cuda_, context_);
  cuda_->moduleUnload(module_);
}

std::unique_ptr<CudaProgram> CudaProgram::load(std::shared_ptr<const CudaLibrary> cuda,
                                               CUcontext context, std::string ptx,
                                               const compiler::ProgramInfo &info,
                                               size_t maxDynamicSharedBytes, std::string &error) {
  CurrentContext current(*cuda, context);
  std::array<char, 8192> log{};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(), reinterpret_cast<void *>(log.size() - 1)};
  CUmodule module = nullptr;
  CUresult result = cuda->moduleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (result != CUDA_SUCCESS) {
    error = "the CUDA driver cannot load the program's PTX: " + cuda->describe(result) + "\n" +
            log.data();
    return nullptr;
  }
  std::unique_ptr<CudaProgram> program(new CudaProgram(cuda, context, module, std::move(ptx)));
  program->printfCalls_ = info.printfCalls;
  for (const compiler::KernelInfo &kernel : info.kernels) {
    CUfunction function = nullptr;
    if (cuda->moduleGetFunction(&function, module, entryName(kernel.name).c_str()) !=
        CUDA_SUCCESS) {
      error = "the program's PTX has no entry for kernel '" + kernel.name + "'";
      return nullptr;
    }
    // __local arguments may use the whole of the block's shared memory beyond the kernel's own
    // variables, as much as the hardware allows with the opt-in.
    int staticShared = functionAttribute(*cuda, function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    if (maxDynamicSharedBytes > static_cast<size_t>(staticShared))
      cuda->funcSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(maxDynamicSharedBytes - staticShared));
    DeviceKernelInfo kernelInfo;
    kernelInfo.maxWorkGroupSize =
        functionAttribute(*cuda, function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    kernelInfo.preferredWorkGroupSizeMultiple = 32;
    // Eight warps: several blocks then share each multiprocessor, hiding one another's memory
    // latency, as blocks of 1024 threads (at most two per multiprocessor) cannot.
    kernelInfo.preferredWorkGroupItems = 256;
    kernelInfo.privateMemSize =
        functionAttribute(*cuda, function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    kernelInfo.subGroupSize = kernel.requiredSubGroupSize ? kernel.requiredSubGroupSize : kWarpSize;
    if (kernel.usesWorkGroupScratch)
      kernelInfo.workGroupScratchSize =
          workGroupScratchBytes(kernel.requiredWorkGroupSize[0] * kernel.requiredWorkGroupSize[1] *
                                    kernel.requiredWorkGroupSize[2],
                                static_cast<unsigned>(kernelInfo.subGroupSize));
    program->kernels_.emplace(kernel.name,
                              CudaKernel(function, kernelInfo, kernel,
                                         kernel.usesPrintf ? &program->printfCalls_ : nullptr));
  }
  return program;
}

const DeviceKernel *CudaProgram::kernel(std::string_view name) const {
  auto found = kernels_.find(name);
  return found == kernels_.end() ? nullptr : &found->second;
}

std::vector<std::byte> CudaProgram::serialize() const {
  auto bytes = reinterpret_cast<const std::byte *>(ptx_.data());
  return {bytes, bytes + ptx_.size()};
}

} // namespace kiln::cuda
