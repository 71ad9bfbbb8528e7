// A GPU's driver: its construction, the device it describes, its programs and its memory (managed,
// or pinned host memory); and a driver for each GPU the CUDA driver reports.
#include "devices/cuda/cuda_driver.hpp"

#include "devices/cuda/cuda_driver_class.hpp"
#include "devices/cuda/cuda_program.hpp"
#include "devices/cuda/current_context.hpp"
#include "runtime/objects/kiln_language.hpp"
#include "support/settings.hpp"

#include <utility>

namespace kiln::cuda {
namespace {

/// Whether the GPU and the host may use managed memory at the same time, the pages moving on
/// demand and on request (cuMemPrefetchAsync).
bool hasConcurrentManagedAccess(const CudaLibrary &cuda, CUdevice device) {
  int value = 0;
  return cuda.deviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device) ==
             CUDA_SUCCESS &&
         value != 0;
}

} // namespace

CudaDriver::CudaDriver(CodeGeneratorHandle<PtxCompiler> ptxCompiler,
                       std::shared_ptr<const CudaLibrary> cuda, int ordinal, CUdevice device,
                       CUcontext context)
    : ptxCompiler_(ptxCompiler), cuda_(std::move(cuda)), device_(device), context_(context),
      info_(describeGpu(*cuda_, device_, properties_)), target_(compilerTargetOf(info_)),
      residency_(*cuda_, ordinal, hasConcurrentManagedAccess(*cuda_, device)) {
  CurrentContext current(*cuda_, context_);
  for (size_t index = 0; index < kStreams; ++index) {
    auto lane = std::make_unique<Lane>();
    lane->index = index;
    if (cuda_->streamCreate(&lane->stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
      lane->stream = nullptr;
    lane->commands = std::make_unique<CommandThread>(
        [this, &lane = *lane](std::vector<CommandThread::Item> &batch) { finish(lane, batch); },
        &hostWaits_);
    lane->starter = std::make_unique<CommandThread>(
        [this, &lane = *lane](std::vector<CommandThread::Item> &batch) {
          startAhead(lane, batch);
        });
    lanes_.push_back(std::move(lane));
  }
}

std::unique_ptr<DeviceProgram> CudaDriver::loadProgram(const compiler::Bitcode &module,
                                                       const compiler::ProgramInfo &info,
                                                       bool optimize, std::string &error) {
  PtxCompiler *compiler = ptxCompiler_.get(error);
  if (compiler == nullptr)
    return nullptr;
  PtxResult ptx = compiler->compile(module, info, properties_.smVersion, optimize);
  if (!ptx.success) {
    error = ptx.error;
    return nullptr;
  }
  return CudaProgram::load(
      cuda_, context_, std::move(ptx.ptx), info,
      ProgramLoadLimits{properties_.maxDynamicSharedBytes, info_.maxWorkItemSizes}, error);
}

std::unique_ptr<DeviceProgram> CudaDriver::loadSerializedProgram(std::span<const std::byte> bytes,
                                                                 const compiler::Bitcode &,
                                                                 const compiler::ProgramInfo &info,
                                                                 bool) {
  std::string error;
  return CudaProgram::load(
      cuda_, context_, std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()),
      info, ProgramLoadLimits{properties_.maxDynamicSharedBytes, info_.maxWorkItemSizes}, error);
}

std::string CudaDriver::codeIdentity() const {
  return info_.name + "|sm_" + std::to_string(properties_.smVersion) +
         settingsIdentity(&SettingInfo::changesGpuCode);
}

AlignedStorage CudaDriver::allocateSharedMemory(size_t size, MemoryPlacement placement) {
  CurrentContext current(*cuda_, context_);
  if (placement == MemoryPlacement::Host) {
    if (AlignedStorage pinned = allocatePinnedMemory(size))
      return pinned;
    // Pinned memory is a scarcer resource than memory: fall back to managed memory.
  }
  CUdeviceptr pointer = 0;
  if (cuda_->memAllocManaged(&pointer, size, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS)
    return nullptr;
  AlignedStorage storage(reinterpret_cast<std::byte *>(pointer),
                         StorageRelease{&CudaDriver::releaseSharedMemory, this});
  residency_.allocated(storage.get(), size);
  return storage;
}

void CudaDriver::releaseSharedMemory(void *owner, std::byte *pointer) {
  auto &driver = *static_cast<CudaDriver *>(owner);
  driver.residency_.released(pointer);
  CurrentContext current(*driver.cuda_, driver.context_);
  driver.cuda_->memFree(reinterpret_cast<CUdeviceptr>(pointer));
}

AlignedStorage CudaDriver::allocatePinnedMemory(size_t size) {
  void *host = nullptr;
  if (cuda_->memHostAlloc(&host, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) !=
      CUDA_SUCCESS)
    return nullptr;
  AlignedStorage pinned(static_cast<std::byte *>(host),
                        StorageRelease{&CudaDriver::releasePinnedMemory, this});
  CUdeviceptr device = 0;
  if (cuda_->memHostGetDevicePointer(&device, host, 0) != CUDA_SUCCESS ||
      device != reinterpret_cast<CUdeviceptr>(host))
    return nullptr;
  return pinned;
}

void CudaDriver::releasePinnedMemory(void *owner, std::byte *pointer) {
  auto &driver = *static_cast<CudaDriver *>(owner);
  CurrentContext current(*driver.cuda_, driver.context_);
  driver.cuda_->memFreeHost(pointer);
}

std::vector<std::unique_ptr<DeviceDriver>> createCudaDrivers(CompilerLoader &compiler) {
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  std::shared_ptr<const CudaLibrary> cuda = CudaLibrary::open();
  if (cuda == nullptr)
    return drivers;
  int count = 0;
  if (cuda->deviceGetCount(&count) != CUDA_SUCCESS)
    return drivers;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    CUcontext context = nullptr;
    // The primary context: the one the CUDA runtime of the application would use too, so
    // memory and modules are shared with it rather than duplicated.
    if (cuda->deviceGet(&device, ordinal) != CUDA_SUCCESS ||
        cuda->primaryCtxRetain(&context, device) != CUDA_SUCCESS)
      continue;
    drivers.push_back(std::make_unique<CudaDriver>(CodeGeneratorHandle<PtxCompiler>(compiler), cuda,
                                                   ordinal, device, context));
  }
  return drivers;
}

} // namespace kiln::cuda
