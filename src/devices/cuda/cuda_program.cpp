#include "devices/cuda/cuda_program.hpp"

#include "devices/cuda/current_context.hpp"
#include "devices/cuda/launch_abi.hpp"
#include "devices/cuda/ptx_compiler.hpp"
#include "devices/cuda/ptx_module.hpp"
#include "runtime/scheduling/device_enqueue.hpp"

namespace kiln::cuda {
namespace {

int functionAttribute(const CudaLibrary &cuda, CUfunction function,
                      CUfunction_attribute attribute) {
  int value = 0;
  return cuda.funcGetAttribute(&value, attribute, function) == CUDA_SUCCESS ? value : 0;
}

/// __local arguments may use the whole of the block's shared memory beyond the kernel's own
/// variables, as much as the hardware allows with the opt-in.
void allowDynamicSharedMemory(const CudaLibrary &cuda, CUfunction function,
                              size_t maxDynamicSharedBytes) {
  int staticShared = functionAttribute(cuda, function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  if (maxDynamicSharedBytes > static_cast<size_t>(staticShared))
    cuda.funcSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          static_cast<int>(maxDynamicSharedBytes - staticShared));
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
                                               const ProgramLoadLimits &limits,
                                               std::string &error) {
  CurrentContext current(*cuda, context);
  CUmodule module = loadPtxModule(*cuda, ptx, error);
  if (module == nullptr)
    return nullptr;
  std::unique_ptr<CudaProgram> program(new CudaProgram(cuda, context, module, std::move(ptx)));
  program->printfCalls_ = info.printfCalls;
  for (const compiler::KernelInfo &kernel : info.kernels) {
    CUfunction function = nullptr;
    if (cuda->moduleGetFunction(&function, module, entryName(kernel.name).c_str()) !=
        CUDA_SUCCESS) {
      error = "the program's PTX has no entry for kernel '" + kernel.name + "'";
      return nullptr;
    }
    allowDynamicSharedMemory(*cuda, function, limits.maxDynamicSharedBytes);
    CUfunction deviceEntry = nullptr;
    if (kernel.isEnqueuedBlock &&
        cuda->moduleGetFunction(&deviceEntry, module, deviceEntryName(kernel.name).c_str()) ==
            CUDA_SUCCESS)
      allowDynamicSharedMemory(*cuda, deviceEntry, limits.maxDynamicSharedBytes);
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
  if (!program->fillBlockKernelLimits(info, limits.maxWorkItemSizes)) {
    error = "the CUDA driver cannot write the program's block kernel limits";
    return nullptr;
  }
  return program;
}

bool CudaProgram::fillBlockKernelLimits(const compiler::ProgramInfo &info,
                                        const std::array<size_t, 3> &maxWorkItemSizes) {
  CUdeviceptr table = 0;
  size_t bytes = 0;
  if (cuda_->moduleGetGlobal(&table, &bytes, module_, kBlockKernelLimitsSymbol) != CUDA_SUCCESS)
    return true; // no kernel of the program enqueues
  std::vector<compiler::BlockKernelLimits> limits;
  for (const compiler::KernelInfo &kernel : info.kernels) {
    const DeviceKernel *code = this->kernel(kernel.name);
    limits.push_back(
        blockKernelLimits(code != nullptr ? code->info() : DeviceKernelInfo{}, maxWorkItemSizes));
  }
  size_t size = limits.size() * sizeof(compiler::BlockKernelLimits);
  return size == bytes && cuda_->memcpyHtoD(table, limits.data(), size) == CUDA_SUCCESS;
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
