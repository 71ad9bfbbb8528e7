#include "devices/cuda/cuda_device_info.hpp"

#include "devices/cuda/ptx_compiler.hpp"
#include "devices/cuda/ptx_register_classes.hpp"

#include "runtime/objects/kiln_language.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/scheduling/device_enqueue.hpp"

#include <algorithm>

namespace kiln::cuda {
namespace {

constexpr cl_uint kNvidiaVendorId = 0x10de;

int attribute(const CudaLibrary &cuda, CUdevice device, CUdevice_attribute which) {
  int value = 0;
  return cuda.deviceGetAttribute(&value, which, device) == CUDA_SUCCESS ? value : 0;
}

void describeCompute(const CudaLibrary &cuda, CUdevice device, DeviceInfo &info) {
  info.maxComputeUnits = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.maxClockFrequencyMHz = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  info.maxWorkItemDimensions = 3;
  info.maxWorkGroupSize = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  // A work-group deeper than a block may be (64 along z) shares the block's y axis with its
  // rows (LaunchParams::foldedHeight), so it may be as deep as a block has threads.
  info.maxWorkItemSizes = {
      static_cast<size_t>(attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
      static_cast<size_t>(attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
      info.maxWorkGroupSize};
  // A warp: work-groups of a multiple of it leave no lane of the SIMT units idle.
  info.preferredWorkGroupSizeMultiple = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  // Sub-groups are warps or parts of warps. Warps are scheduled independently, and since Volta
  // (sm_70) so are the diverged paths within one.
  info.subGroupSizes.assign(kSubGroupSizes.begin(), kSubGroupSizes.end());
  info.maxNumSubGroups = static_cast<cl_uint>(info.maxWorkGroupSize / kSubGroupSizes.front());
  info.subGroupIndependentForwardProgress =
      attribute(cuda, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 7;
  // Each work-item is a thread: scalar code is what the hardware prefers.
  info.preferredVectorWidthChar = info.preferredVectorWidthShort = 1;
  info.preferredVectorWidthInt = info.preferredVectorWidthLong = 1;
  info.preferredVectorWidthFloat = info.preferredVectorWidthDouble = 1;
  info.nativeVectorWidthChar = info.nativeVectorWidthShort = 1;
  info.nativeVectorWidthInt = info.nativeVectorWidthLong = 1;
  info.nativeVectorWidthFloat = info.nativeVectorWidthDouble = 1;
  // Two halves share a register and one f16x2 instruction.
  info.preferredVectorWidthHalf = info.nativeVectorWidthHalf = 2;
  info.executionCapabilities = CL_EXEC_KERNEL;
  info.nonUniformWorkGroupSupport = true;
  info.genericAddressSpaceSupport = true;
  NvidiaAttributes &nvidia = info.nvidia;
  nvidia.computeCapabilityMajor =
      attribute(cuda, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  nvidia.computeCapabilityMinor =
      attribute(cuda, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  nvidia.registersPerBlock = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  nvidia.warpSize = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  nvidia.gpuOverlap = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT) > 0;
  nvidia.kernelExecTimeout = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT) != 0;
  nvidia.integratedMemory = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
  // Programs written for NVIDIA's driver put PTX in `asm` statements (hashcat, CLBlast); the
  // code generator passes them through to the PTX it writes.
  info.inlineAssembly = true;
  info.inlineAssemblyRegisterClasses = kPtxRegisterClassLetters;
}

/// SVM allocations are managed memory (one address on the host and every device). The host and
/// the GPU may use them at the same time, with atomics at system scope, where the GPU accesses
/// managed memory concurrently with the host; any memory of the process where the GPU reaches
/// pageable memory (HMM, or a coherent link).
cl_device_svm_capabilities svmCapabilitiesOf(const CudaLibrary &cuda, CUdevice device) {
  cl_device_svm_capabilities capabilities = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER;
  if (attribute(cuda, device, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) != 0)
    capabilities |= CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS;
  if (attribute(cuda, device, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS) != 0)
    capabilities |= CL_DEVICE_SVM_FINE_GRAIN_SYSTEM;
  return capabilities;
}

/// USM host allocations are pinned host memory, which the GPU reads and writes over the bus
/// while the host does (atomics over the bus depend on the platform: not offered); device and
/// shared allocations are managed memory, shared ones used at the same time as the host where
/// SVM's fine-grained buffers are; system memory where fine-grained system SVM is.
UsmCapabilities usmCapabilitiesOf(cl_device_svm_capabilities svm) {
  constexpr cl_bitfield access = CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL;
  constexpr cl_bitfield atomics = CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL;
  constexpr cl_bitfield concurrent = CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL |
                                     CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
  UsmCapabilities usm;
  usm.host = access | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL;
  usm.device = access | atomics;
  usm.singleDeviceShared = access | atomics;
  if (svm & CL_DEVICE_SVM_ATOMICS)
    usm.singleDeviceShared |= concurrent;
  usm.crossDeviceShared = usm.singleDeviceShared;
  if (svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)
    usm.sharedSystem = access | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL;
  return usm;
}

void describeMemory(const CudaLibrary &cuda, CUdevice device, DeviceInfo &info,
                    GpuProperties &properties) {
  size_t total = 0;
  cuda.deviceTotalMem(&total, device);
  info.globalMemSize = total;
  info.maxMemAllocSize = std::max<cl_ulong>(total / 4, 128ull << 20);
  info.globalMemCacheType = CL_READ_WRITE_CACHE;
  info.globalMemCachelineSize = 128;
  info.globalMemCacheSize = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  // __constant buffers are ordinary device memory read through the caches: no bank limit.
  info.maxConstantBufferSize = 64 * 1024;
  info.maxConstantArgs = 8;
  info.localMemType = CL_LOCAL;
  properties.maxDynamicSharedBytes =
      attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  // A kernel's __local variables and its __local arguments together, as the hardware allows a
  // block with the opt-in; 48 KiB on GPUs without it.
  info.localMemSize =
      std::max<size_t>(properties.maxDynamicSharedBytes,
                       attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  info.errorCorrectionSupport = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_ECC_ENABLED) != 0;
  info.hostUnifiedMemory = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
  info.memBaseAddrAlignBits = 1024;
  info.minDataTypeAlignSize = 128;
  info.svmCapabilities = svmCapabilitiesOf(cuda, device);
  info.usm = usmCapabilitiesOf(info.svmCapabilities);
  // The kernel parameter space (4 KiB before Volta's 32 KiB) holds the argument block.
  info.maxParameterSize = 4096 - 256;
  info.maxGlobalVariableSize = 16 << 20; // static .global memory of the module
  info.globalVariablePreferredTotalSize = 16 << 20;
}

void describeFloatingPoint(DeviceInfo &info) {
  // PTX's .rn division and square root are correctly rounded, denormals are kept (no .ftz),
  // and every rounding mode exists as an instruction modifier.
  info.singleFpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                        CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA |
                        CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
  info.doubleFpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                        CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA;
  // The f16 instructions round to nearest only and keep subnormals; fma exists as one.
  info.halfFpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
}

/// Images: the builtin library's (elements in device-addressed memory like buffers), sampled
/// through textures of CUDA arrays (device_image.hpp), so the sizes stay within what CUDA's layered
/// and 3D textures take.
void describeImages(const CudaLibrary &cuda, CUdevice device, DeviceInfo &info) {
  describeKilnImages(info);
  auto cap = [&](size_t &size, CUdevice_attribute limit) {
    size = std::min<size_t>(size, attribute(cuda, device, limit));
  };
  cap(info.image2dMaxWidth, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
  cap(info.image2dMaxHeight, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
  cap(info.image3dMaxWidth, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
  cap(info.image3dMaxHeight, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
  cap(info.image3dMaxDepth, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
  cap(info.imageMaxArraySize, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
}

} // namespace

DeviceInfo describeGpu(const CudaLibrary &cuda, CUdevice device, GpuProperties &properties) {
  DeviceInfo info;
  info.type = CL_DEVICE_TYPE_GPU;
  info.vendorId = kNvidiaVendorId;
  char name[256] = {};
  cuda.deviceGetName(name, sizeof(name) - 1, device);
  info.name = name;
  info.vendor = "NVIDIA Corporation";
  int driverVersion = 0;
  cuda.driverGetVersion(&driverVersion);
  info.driverVersion = std::string(kilnVersion()) + " (CUDA " +
                       std::to_string(driverVersion / 1000) + "." +
                       std::to_string(driverVersion % 1000 / 10) + ")";
  info.version = std::string("OpenCL 3.0 Kiln ") + kilnVersion();
  info.numericVersion = makeVersion(3, 0);
  properties.smVersion =
      attribute(cuda, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
      attribute(cuda, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  properties.maxBlockDepth = attribute(cuda, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  info.queueOnHostProperties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  describeDeviceEnqueue(info);
  info.profilingTimerResolutionNs = 1;
  info.printfBufferSize = 1 << 20;

  describeCompute(cuda, device, info);
  describeMemory(cuda, device, info, properties);
  describeKilnLanguage(info);
  describeImages(cuda, device, info);
  describeFloatingPoint(info);
  return info;
}

} // namespace kiln::cuda
