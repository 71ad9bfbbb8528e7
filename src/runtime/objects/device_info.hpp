// Everything clGetDeviceInfo reports about a device. A device driver fills one of these from what
// the hardware and its code generator really do; the API layer only reads it.
#pragma once

#include "support/icd_handles.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace kiln {

/// A name with its version, as in the *_WITH_VERSION queries.
struct NamedVersion {
  std::string name;
  cl_version version;
};

/// Builds a cl_version value (CL_MAKE_VERSION without the macro).
constexpr cl_version makeVersion(cl_uint major, cl_uint minor, cl_uint patch = 0) {
  return (major << 22) | (minor << 12) | patch;
}

/// What cl_nv_device_attribute_query reports of an NVIDIA GPU.
struct NvidiaAttributes {
  cl_uint computeCapabilityMajor = 0, computeCapabilityMinor = 0;
  cl_uint registersPerBlock = 0;
  cl_uint warpSize = 0;
  bool gpuOverlap = false;        // copies run while kernels do
  bool kernelExecTimeout = false; // a watchdog limits kernels (a display is attached)
  bool integratedMemory = false;
};

/// What the device does with each kind of cl_intel_unified_shared_memory allocation
/// (CL_UNIFIED_SHARED_MEMORY_*_INTEL bits).
struct UsmCapabilities {
  cl_bitfield host = 0, device = 0, singleDeviceShared = 0, crossDeviceShared = 0, sharedSystem = 0;
};

struct DeviceInfo {
  // Identity
  cl_device_type type = CL_DEVICE_TYPE_DEFAULT;
  cl_uint vendorId = 0;
  std::string name;
  std::string vendor;
  std::string driverVersion;
  std::string profile = "FULL_PROFILE";
  std::string version; // "OpenCL 3.0 <driver>"
  cl_version numericVersion = makeVersion(3, 0);
  std::string openclCVersion = "OpenCL C 1.2 ";
  std::vector<NamedVersion> openclCAllVersions;
  std::vector<NamedVersion> openclCFeatures;
  std::vector<NamedVersion> extensions;
  std::string latestConformanceVersionPassed = "v0000-01-01-00";
  std::vector<NamedVersion> ilsWithVersion;
  std::vector<NamedVersion> builtInKernels;

  // Compute
  cl_uint maxComputeUnits = 1;
  cl_uint maxClockFrequencyMHz = 0;
  cl_uint maxWorkItemDimensions = 3;
  std::array<size_t, 3> maxWorkItemSizes{1, 1, 1};
  size_t maxWorkGroupSize = 1;
  size_t preferredWorkGroupSizeMultiple = 1;
  cl_uint maxNumSubGroups = 0;
  bool subGroupIndependentForwardProgress = false;
  std::vector<size_t> subGroupSizes; // CL_DEVICE_SUB_GROUP_SIZES_INTEL
  cl_uint preferredVectorWidthChar = 1, preferredVectorWidthShort = 1, preferredVectorWidthInt = 1,
          preferredVectorWidthLong = 1, preferredVectorWidthFloat = 1,
          preferredVectorWidthDouble = 0, preferredVectorWidthHalf = 0;
  cl_uint nativeVectorWidthChar = 1, nativeVectorWidthShort = 1, nativeVectorWidthInt = 1,
          nativeVectorWidthLong = 1, nativeVectorWidthFloat = 1, nativeVectorWidthDouble = 0,
          nativeVectorWidthHalf = 0;
  cl_device_fp_config singleFpConfig = 0;
  cl_device_fp_config doubleFpConfig = 0;
  cl_device_fp_config halfFpConfig = 0;
  cl_device_exec_capabilities executionCapabilities = CL_EXEC_KERNEL;
  bool nonUniformWorkGroupSupport = false;
  bool workGroupCollectiveFunctionsSupport = false;
  bool genericAddressSpaceSupport = false;
  cl_device_device_enqueue_capabilities deviceEnqueueCapabilities = 0;
  bool pipeSupport = false;

  // Memory
  cl_uint addressBits = 64;
  bool endianLittle = true;
  cl_ulong globalMemSize = 0;
  cl_ulong maxMemAllocSize = 0;
  cl_device_mem_cache_type globalMemCacheType = CL_NONE;
  cl_uint globalMemCachelineSize = 0;
  cl_ulong globalMemCacheSize = 0;
  cl_ulong maxConstantBufferSize = 64 * 1024;
  cl_uint maxConstantArgs = 8;
  size_t maxGlobalVariableSize = 0;
  size_t globalVariablePreferredTotalSize = 0;
  cl_device_local_mem_type localMemType = CL_GLOBAL;
  cl_ulong localMemSize = 0;
  bool errorCorrectionSupport = false;
  bool hostUnifiedMemory = false;
  cl_uint memBaseAddrAlignBits = 1024;
  cl_uint minDataTypeAlignSize = 128;
  size_t maxParameterSize = 1024;
  cl_device_svm_capabilities svmCapabilities = 0;
  UsmCapabilities usm; // with cl_intel_unified_shared_memory
  cl_uint preferredPlatformAtomicAlignment = 0;
  cl_uint preferredGlobalAtomicAlignment = 0;
  cl_uint preferredLocalAtomicAlignment = 0;
  cl_device_atomic_capabilities atomicMemoryCapabilities =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  cl_device_atomic_capabilities atomicFenceCapabilities = CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                                          CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                                          CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;

  // Images and samplers (all zero: no image support yet)
  bool imageSupport = false;
  cl_uint maxReadImageArgs = 0, maxWriteImageArgs = 0, maxReadWriteImageArgs = 0;
  size_t image2dMaxWidth = 0, image2dMaxHeight = 0;
  size_t image3dMaxWidth = 0, image3dMaxHeight = 0, image3dMaxDepth = 0;
  size_t imageMaxBufferSize = 0, imageMaxArraySize = 0;
  cl_uint maxSamplers = 0;
  cl_uint imagePitchAlignment = 0, imageBaseAddressAlignment = 0;

  // Pipes
  cl_uint maxPipeArgs = 0, pipeMaxActiveReservations = 0, pipeMaxPacketSize = 0;

  // Queues
  cl_command_queue_properties queueOnHostProperties = 0;
  cl_command_queue_properties queueOnDeviceProperties = 0;
  cl_uint queueOnDevicePreferredSize = 0, queueOnDeviceMaxSize = 0;
  cl_uint maxOnDeviceQueues = 0, maxOnDeviceEvents = 0;

  // Misc
  size_t profilingTimerResolutionNs = 1;
  bool available = true;
  bool compilerAvailable = true;
  bool linkerAvailable = true;
  size_t printfBufferSize = 0;
  bool preferredInteropUserSync = true;
  cl_uint partitionMaxSubDevices = 0;
  std::vector<cl_device_partition_property> partitionProperties;
  cl_device_affinity_domain partitionAffinityDomain = 0;
  NvidiaAttributes nvidia; // with cl_nv_device_attribute_query
  /// Whether OpenCL C's GNU `asm` statements hold the device's own assembly (the GPU's PTX),
  /// which its code generator passes through; elsewhere `asm` is an ordinary identifier.
  bool inlineAssembly = false;
  /// The constraint letters of its own register classes that `asm` operands may name, which the
  /// front end reads as the generic `r` and its code generator chooses again by operand width.
  std::string inlineAssemblyRegisterClasses;

  /// Space-separated extension names, as CL_DEVICE_EXTENSIONS reports them.
  std::string extensionString() const;
  bool hasExtension(const std::string &extension) const;
  bool hasFeature(const std::string &feature) const;
};

} // namespace kiln
