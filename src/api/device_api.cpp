// Device entry points.
#include "api/api_support.hpp"
#include "api/device_selection.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/device_partition.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/objects/queue.hpp"
#include "support/command_buffer_khr.hpp"

#include <cstring>
#include <memory>

using namespace kiln;
using namespace kiln::api;

namespace kiln::api {

bool isValidDeviceType(cl_device_type type) {
  constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU |
                                   CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR |
                                   CL_DEVICE_TYPE_CUSTOM;
  return type == CL_DEVICE_TYPE_ALL || (type != 0 && (type & ~known) == 0);
}

std::vector<Device *> devicesOfType(const Platform &platform, cl_device_type type) {
  std::vector<Device *> selected;
  for (Device *device : platform.devices()) {
    bool isDefault = device == platform.defaultDevice();
    // CL_DEVICE_TYPE_ALL never includes custom devices.
    bool matches = type == CL_DEVICE_TYPE_ALL ? device->info().type != CL_DEVICE_TYPE_CUSTOM
                                              : (type & device->info().type) != 0 ||
                                                    ((type & CL_DEVICE_TYPE_DEFAULT) && isDefault);
    if (matches)
      selected.push_back(device);
  }
  return selected;
}

} // namespace kiln::api

KILN_API cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                           cl_uint num_entries, cl_device_id *devices,
                                           cl_uint *num_devices) {
  if (platform != nullptr && !Platform::isObject(platform))
    return CL_INVALID_PLATFORM;
  if (!isValidDeviceType(device_type))
    return CL_INVALID_DEVICE_TYPE;
  if ((num_entries == 0 && devices != nullptr) || (devices == nullptr && num_devices == nullptr))
    return CL_INVALID_VALUE;
  return guard([&] {
    std::vector<Device *> found = devicesOfType(Platform::get(), device_type);
    if (found.empty())
      return CL_DEVICE_NOT_FOUND;
    if (devices != nullptr)
      for (cl_uint index = 0; index < num_entries && index < found.size(); ++index)
        devices[index] = found[index];
    if (num_devices != nullptr)
      *num_devices = static_cast<cl_uint>(found.size());
    return CL_SUCCESS;
  });
}

namespace {

std::vector<cl_name_version> toNameVersions(const std::vector<NamedVersion> &list) {
  std::vector<cl_name_version> result;
  for (const NamedVersion &entry : list) {
    cl_name_version converted{};
    converted.version = entry.version;
    std::strncpy(converted.name, entry.name.c_str(), CL_NAME_VERSION_MAX_NAME_SIZE - 1);
    result.push_back(converted);
  }
  return result;
}

/// CL_DEVICE_IL_VERSION: each IL as <name>_<major>.<minor>, separated by spaces.
std::string ilVersionString(const std::vector<NamedVersion> &list) {
  std::string text;
  for (const NamedVersion &entry : list) {
    if (!text.empty())
      text += ' ';
    text += entry.name + "_" + std::to_string(CL_VERSION_MAJOR(entry.version)) + "." +
            std::to_string(CL_VERSION_MINOR(entry.version));
  }
  return text;
}

std::string joinNames(const std::vector<NamedVersion> &list, char separator) {
  std::string text;
  for (const NamedVersion &entry : list) {
    if (!text.empty())
      text += separator;
    text += entry.name;
  }
  return text;
}

cl_int identityInfo(const Device &device, cl_device_info param, const InfoOutput &out) {
  const DeviceInfo &info = device.info();
  switch (param) {
  case CL_DEVICE_TYPE:
    return out(info.type);
  case CL_DEVICE_VENDOR_ID:
    return out(info.vendorId);
  case CL_DEVICE_NAME:
    return out(info.name);
  case CL_DEVICE_VENDOR:
    return out(info.vendor);
  case CL_DRIVER_VERSION:
    return out(info.driverVersion);
  case CL_DEVICE_PROFILE:
    return out(info.profile);
  case CL_DEVICE_VERSION:
    return out(info.version);
  case CL_DEVICE_NUMERIC_VERSION:
    return out(info.numericVersion);
  case CL_DEVICE_OPENCL_C_VERSION:
    return out(info.openclCVersion);
  case CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR: // cl_khr_extended_versioning
    return out(makeVersion(1, 2));
  case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
    return out(toNameVersions(info.openclCAllVersions));
  case CL_DEVICE_OPENCL_C_FEATURES:
    return out(toNameVersions(info.openclCFeatures));
  case CL_DEVICE_EXTENSIONS:
    return out(info.extensionString());
  case CL_DEVICE_EXTENSIONS_WITH_VERSION:
    return out(toNameVersions(info.extensions));
  case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
    return out(info.latestConformanceVersionPassed);
  case CL_DEVICE_IL_VERSION:
    return out(ilVersionString(info.ilsWithVersion));
  case CL_DEVICE_ILS_WITH_VERSION:
    return out(toNameVersions(info.ilsWithVersion));
  case CL_DEVICE_BUILT_IN_KERNELS:
    return out(joinNames(info.builtInKernels, ';'));
  case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    return out(toNameVersions(info.builtInKernels));
  case CL_DEVICE_PLATFORM:
    return out(static_cast<cl_platform_id>(&device.platform()));
  case CL_DEVICE_AVAILABLE:
    return out.boolean(info.available);
  case CL_DEVICE_COMPILER_AVAILABLE:
    return out.boolean(info.compilerAvailable);
  case CL_DEVICE_LINKER_AVAILABLE:
    return out.boolean(info.linkerAvailable);
  case CL_DEVICE_PARENT_DEVICE:
    return out(static_cast<cl_device_id>(device.parent()));
  case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
    return out(info.partitionMaxSubDevices);
  case CL_DEVICE_PARTITION_PROPERTIES:
    // No partitioning: a single zero, as the specification asks.
    return out(info.partitionProperties.empty() ? std::vector<cl_device_partition_property>{0}
                                                : info.partitionProperties);
  case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
    return out(info.partitionAffinityDomain);
  case CL_DEVICE_PARTITION_TYPE:
    return out(device.partitionType()); // empty for a root device
  case CL_DEVICE_REFERENCE_COUNT:
    // "If the device is a root-level device, a reference count of one is returned."
    return out(device.isRoot() ? cl_uint{1} : device.externalCount());
  default:
    return CL_INVALID_VALUE;
  }
}

cl_int computeInfo(const DeviceInfo &info, cl_device_info param, const InfoOutput &out) {
  switch (param) {
  case CL_DEVICE_MAX_COMPUTE_UNITS:
    return out(info.maxComputeUnits);
  case CL_DEVICE_MAX_CLOCK_FREQUENCY:
    return out(info.maxClockFrequencyMHz);
  case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
    return out(info.maxWorkItemDimensions);
  case CL_DEVICE_MAX_WORK_ITEM_SIZES:
    return out(info.maxWorkItemSizes);
  case CL_DEVICE_MAX_WORK_GROUP_SIZE:
    return out(info.maxWorkGroupSize);
  case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    return out(info.preferredWorkGroupSizeMultiple);
  case CL_DEVICE_MAX_NUM_SUB_GROUPS:
    return out(info.maxNumSubGroups);
  case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    return out.boolean(info.subGroupIndependentForwardProgress);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    return out(info.preferredVectorWidthChar);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    return out(info.preferredVectorWidthShort);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    return out(info.preferredVectorWidthInt);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    return out(info.preferredVectorWidthLong);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    return out(info.preferredVectorWidthFloat);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    return out(info.preferredVectorWidthDouble);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    return out(info.preferredVectorWidthHalf);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    return out(info.nativeVectorWidthChar);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    return out(info.nativeVectorWidthShort);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    return out(info.nativeVectorWidthInt);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    return out(info.nativeVectorWidthLong);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    return out(info.nativeVectorWidthFloat);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
    return out(info.nativeVectorWidthDouble);
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
    return out(info.nativeVectorWidthHalf);
  case CL_DEVICE_SINGLE_FP_CONFIG:
    return out(info.singleFpConfig);
  case CL_DEVICE_DOUBLE_FP_CONFIG:
    return out(info.doubleFpConfig);
  case CL_DEVICE_HALF_FP_CONFIG:
    if (!info.hasExtension("cl_khr_fp16"))
      return CL_INVALID_VALUE;
    return out(info.halfFpConfig);
  case CL_DEVICE_EXECUTION_CAPABILITIES:
    return out(info.executionCapabilities);
  case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
    return out.boolean(info.nonUniformWorkGroupSupport);
  case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    return out.boolean(info.workGroupCollectiveFunctionsSupport);
  case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
    return out.boolean(info.genericAddressSpaceSupport);
  case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
    return out(info.deviceEnqueueCapabilities);
  case CL_DEVICE_PIPE_SUPPORT:
    return out.boolean(info.pipeSupport);
  case CL_DEVICE_SUB_GROUP_SIZES_INTEL:
    if (!info.hasExtension("cl_intel_required_subgroup_size"))
      return CL_INVALID_VALUE;
    return out(info.subGroupSizes);
  default:
    return CL_INVALID_VALUE;
  }
}

cl_int nvidiaInfo(const DeviceInfo &info, cl_device_info param, const InfoOutput &out) {
  if (param < CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV || param > CL_DEVICE_INTEGRATED_MEMORY_NV ||
      !info.hasExtension("cl_nv_device_attribute_query"))
    return CL_INVALID_VALUE;
  const NvidiaAttributes &nvidia = info.nvidia;
  switch (param) {
  case CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV:
    return out(nvidia.computeCapabilityMajor);
  case CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV:
    return out(nvidia.computeCapabilityMinor);
  case CL_DEVICE_REGISTERS_PER_BLOCK_NV:
    return out(nvidia.registersPerBlock);
  case CL_DEVICE_WARP_SIZE_NV:
    return out(nvidia.warpSize);
  case CL_DEVICE_GPU_OVERLAP_NV:
    return out.boolean(nvidia.gpuOverlap);
  case CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV:
    return out.boolean(nvidia.kernelExecTimeout);
  case CL_DEVICE_INTEGRATED_MEMORY_NV:
    return out.boolean(nvidia.integratedMemory);
  default:
    return CL_INVALID_VALUE;
  }
}

// cl_ext_float_atomics, which the Khronos headers Kiln builds with do not define yet.
#ifndef CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT
#define CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT 0x4231
#define CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT 0x4232
#define CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT 0x4233
#define CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT (1 << 0)
#define CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT (1 << 1)
#define CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT (1 << 2)
#define CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT (1 << 16)
#define CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT (1 << 17)
#define CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT (1 << 18)
#endif

/// What cl_ext_float_atomics offers on the floating type whose feature macros begin with
/// `prefix` (__opencl_c_ext_fp32_, _fp64_): the capabilities of the features the device lists,
/// and loads, stores and exchanges, which OpenCL C's atomic_float and atomic_double have anyway.
cl_bitfield floatAtomicCapabilities(const DeviceInfo &info, const std::string &prefix) {
  struct Capability {
    const char *feature;
    cl_bitfield bit;
  };
  const Capability capabilities[] = {
      {"global_atomic_add", CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT},
      {"global_atomic_min_max", CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT},
      {"local_atomic_add", CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT},
      {"local_atomic_min_max", CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT},
  };
  cl_bitfield result = 0;
  for (const Capability &capability : capabilities)
    if (info.hasFeature(prefix + capability.feature))
      result |= capability.bit;
  if (result != 0)
    result |= CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT | CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT;
  return result;
}

cl_int floatAtomicInfo(const DeviceInfo &info, cl_device_info param, const InfoOutput &out) {
  if (!info.hasExtension("cl_ext_float_atomics"))
    return CL_INVALID_VALUE;
  switch (param) {
  case CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT:
    return out(floatAtomicCapabilities(info, "__opencl_c_ext_fp32_"));
  case CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT:
    return out(floatAtomicCapabilities(info, "__opencl_c_ext_fp64_"));
  case CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT:
    return out(cl_bitfield{0}); // no half type
  default:
    return CL_INVALID_VALUE;
  }
}

cl_int memoryInfo(const DeviceInfo &info, cl_device_info param, const InfoOutput &out) {
  switch (param) {
  case CL_DEVICE_ADDRESS_BITS:
    return out(info.addressBits);
  case CL_DEVICE_ENDIAN_LITTLE:
    return out.boolean(info.endianLittle);
  case CL_DEVICE_GLOBAL_MEM_SIZE:
    return out(info.globalMemSize);
  case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
    return out(info.maxMemAllocSize);
  case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
    return out(info.globalMemCacheType);
  case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
    return out(info.globalMemCachelineSize);
  case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
    return out(info.globalMemCacheSize);
  case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
    return out(info.maxConstantBufferSize);
  case CL_DEVICE_MAX_CONSTANT_ARGS:
    return out(info.maxConstantArgs);
  case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    return out(info.maxGlobalVariableSize);
  case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
    return out(info.globalVariablePreferredTotalSize);
  case CL_DEVICE_LOCAL_MEM_TYPE:
    return out(info.localMemType);
  case CL_DEVICE_LOCAL_MEM_SIZE:
    return out(info.localMemSize);
  case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    return out.boolean(info.errorCorrectionSupport);
  case CL_DEVICE_HOST_UNIFIED_MEMORY:
    return out.boolean(info.hostUnifiedMemory);
  case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
    return out(info.memBaseAddrAlignBits);
  case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
    return out(info.minDataTypeAlignSize);
  case CL_DEVICE_MAX_PARAMETER_SIZE:
    return out(info.maxParameterSize);
  case CL_DEVICE_SVM_CAPABILITIES:
    return out(info.svmCapabilities);
  case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
    return out(kCommandBufferCapabilities);
  case CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR:
    return out(kCommandBufferQueueProperties);
  case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR:
    return out(cl_command_queue_properties{0});
  case CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR:
    return out(kMutableDispatchFields);
  case CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL:
    return out(info.usm.host);
  case CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL:
    return out(info.usm.device);
  case CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL:
    return out(info.usm.singleDeviceShared);
  case CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL:
    return out(info.usm.crossDeviceShared);
  case CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL:
    return out(info.usm.sharedSystem);
  case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    return out(info.preferredPlatformAtomicAlignment);
  case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    return out(info.preferredGlobalAtomicAlignment);
  case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    return out(info.preferredLocalAtomicAlignment);
  case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
    return out(info.atomicMemoryCapabilities);
  case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
    return out(info.atomicFenceCapabilities);
  default:
    return CL_INVALID_VALUE;
  }
}

cl_int imageAndQueueInfo(const DeviceInfo &info, cl_device_info param, const InfoOutput &out) {
  switch (param) {
  case CL_DEVICE_IMAGE_SUPPORT:
    return out.boolean(info.imageSupport);
  case CL_DEVICE_MAX_READ_IMAGE_ARGS:
    return out(info.maxReadImageArgs);
  case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    return out(info.maxWriteImageArgs);
  case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
    return out(info.maxReadWriteImageArgs);
  case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    return out(info.image2dMaxWidth);
  case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
    return out(info.image2dMaxHeight);
  case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    return out(info.image3dMaxWidth);
  case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    return out(info.image3dMaxHeight);
  case CL_DEVICE_IMAGE3D_MAX_DEPTH:
    return out(info.image3dMaxDepth);
  case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    return out(info.imageMaxBufferSize);
  case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
    return out(info.imageMaxArraySize);
  case CL_DEVICE_MAX_SAMPLERS:
    return out(info.maxSamplers);
  case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    return out(info.imagePitchAlignment);
  case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
    return out(info.imageBaseAddressAlignment);
  case CL_DEVICE_MAX_PIPE_ARGS:
    return out(info.maxPipeArgs);
  case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    return out(info.pipeMaxActiveReservations);
  case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    return out(info.pipeMaxPacketSize);
  case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
    return out(info.queueOnHostProperties);
  case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
    return out(info.queueOnDeviceProperties);
  case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    return out(info.queueOnDevicePreferredSize);
  case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    return out(info.queueOnDeviceMaxSize);
  case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    return out(info.maxOnDeviceQueues);
  case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    return out(info.maxOnDeviceEvents);
  case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
    return out(info.profilingTimerResolutionNs);
  case CL_DEVICE_PRINTF_BUFFER_SIZE:
    return out(info.printfBufferSize);
  case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
    return out.boolean(info.preferredInteropUserSync);
  default:
    return CL_INVALID_VALUE;
  }
}

} // namespace

KILN_API cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                            size_t param_value_size, void *param_value,
                                            size_t *param_value_size_ret) {
  Device *self = toObject<Device>(device);
  if (self == nullptr)
    return CL_INVALID_DEVICE;
  return guard([&] {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    // Each group answers CL_INVALID_VALUE for parameters it does not know; an unknown
    // parameter falls through every group.
    cl_int result = identityInfo(*self, param_name, out);
    if (result != CL_INVALID_VALUE)
      return result;
    for (auto group : {computeInfo, memoryInfo, imageAndQueueInfo, nvidiaInfo, floatAtomicInfo}) {
      result = group(self->info(), param_name, out);
      if (result != CL_INVALID_VALUE)
        return result;
    }
    return CL_INVALID_VALUE;
  });
}

KILN_API cl_int CL_API_CALL clCreateSubDevices(cl_device_id in_device,
                                               const cl_device_partition_property *properties,
                                               cl_uint num_devices, cl_device_id *out_devices,
                                               cl_uint *num_devices_ret) {
  Device *self = toObject<Device>(in_device);
  if (self == nullptr)
    return CL_INVALID_DEVICE;
  if (properties == nullptr)
    return CL_INVALID_VALUE;
  return guard([&] {
    DevicePartition partition;
    if (cl_int error = planPartition(*self, properties, partition); error != CL_SUCCESS)
      return error;
    size_t count = partition.subDevices.size();
    if (out_devices != nullptr && num_devices < count)
      return CL_INVALID_VALUE;
    if (out_devices != nullptr) {
      std::vector<std::unique_ptr<Device>> created;
      for (const std::vector<unsigned> &units : partition.subDevices) {
        std::unique_ptr<DeviceDriver> driver = self->driver().createSubDevice(units);
        if (driver == nullptr)
          return CL_OUT_OF_RESOURCES; // the ones made so far are destroyed unseen
        created.push_back(std::make_unique<Device>(*self, std::move(driver), partition.type));
      }
      for (size_t index = 0; index < count; ++index)
        out_devices[index] = created[index].release();
    }
    if (num_devices_ret != nullptr)
      *num_devices_ret = static_cast<cl_uint>(count);
    return CL_SUCCESS;
  });
}

KILN_API cl_int CL_API_CALL clRetainDevice(cl_device_id device) {
  Device *self = toObject<Device>(device);
  if (self == nullptr)
    return CL_INVALID_DEVICE;
  if (!self->isRoot()) // a root device's count stays one
    self->retainExternal();
  return CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clReleaseDevice(cl_device_id device) {
  Device *self = toObject<Device>(device);
  if (self == nullptr)
    return CL_INVALID_DEVICE;
  if (!self->isRoot())
    self->releaseExternal();
  return CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context context, cl_device_id device,
                                                           cl_command_queue command_queue) {
  Context *self = toObject<Context>(context);
  if (self == nullptr)
    return CL_INVALID_CONTEXT;
  Device *target = toObject<Device>(device);
  if (target == nullptr || !self->hasDevice(target))
    return CL_INVALID_DEVICE;
  if (!(target->info().deviceEnqueueCapabilities & CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT))
    return CL_INVALID_OPERATION;
  Queue *queue = toObject<Queue>(command_queue);
  if (queue == nullptr || !queue->isOnDevice() || &queue->device() != target ||
      &queue->context() != self)
    return CL_INVALID_COMMAND_QUEUE;
  self->deviceQueues().setDefault(*target, *queue);
  return CL_SUCCESS;
}
