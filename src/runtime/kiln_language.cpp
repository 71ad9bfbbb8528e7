#include "runtime/kiln_language.hpp"

#include <algorithm>

namespace kiln {

void describeKilnImages(DeviceInfo &info) {
  info.imageSupport = true;
  info.maxReadImageArgs = 128;
  info.maxWriteImageArgs = 64;
  info.maxReadWriteImageArgs = 64;
  info.maxSamplers = 16;
  info.image2dMaxWidth = info.image2dMaxHeight = 16384;
  info.image3dMaxWidth = info.image3dMaxHeight = info.image3dMaxDepth = 2048;
  info.imageMaxArraySize = 2048;
  // In elements; the largest element is 16 bytes.
  info.imageMaxBufferSize = std::min<cl_ulong>(info.maxMemAllocSize / 16, size_t{1} << 27);
  info.imagePitchAlignment = 1;       // pixels
  info.imageBaseAddressAlignment = 4; // bytes: element accesses need no more
  for (const char *feature :
       {"__opencl_c_images", "__opencl_c_read_write_images", "__opencl_c_3d_image_writes"})
    info.openclCFeatures.push_back({feature, makeVersion(3, 0)});
  for (const char *extension :
       {"cl_khr_3d_image_writes", "cl_khr_depth_images", "cl_khr_image2d_from_buffer"})
    info.extensions.push_back({extension, makeVersion(1, 0)});
}

void describeKilnLanguage(DeviceInfo &info) {
  info.openclCVersion = "OpenCL C 1.2 Kiln";
  info.openclCAllVersions = {{"OpenCL C", makeVersion(1, 0)},
                             {"OpenCL C", makeVersion(1, 1)},
                             {"OpenCL C", makeVersion(1, 2)},
                             {"OpenCL C", makeVersion(3, 0)}};
  for (const char *feature :
       {"__opencl_c_int64", "__opencl_c_fp64", "__opencl_c_atomic_order_acq_rel",
        "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
        "__opencl_c_atomic_scope_all_devices", "__opencl_c_program_scope_global_variables",
        "__opencl_c_generic_address_space"})
    info.openclCFeatures.push_back({feature, makeVersion(3, 0)});
  for (const char *extension :
       {"cl_khr_byte_addressable_store", "cl_khr_fp64", "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics", "cl_khr_int64_base_atomics",
        "cl_khr_int64_extended_atomics", "cl_khr_icd", "cl_khr_extended_versioning",
        "cl_khr_suggested_local_work_size"})
    info.extensions.push_back({extension, makeVersion(1, 0)});
  info.genericAddressSpaceSupport = true;
  info.nonUniformWorkGroupSupport = true;
  cl_device_atomic_capabilities orders = CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                         CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                         CL_DEVICE_ATOMIC_ORDER_SEQ_CST;
  cl_device_atomic_capabilities scopes = CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                                         CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                                         CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
  info.atomicMemoryCapabilities = orders | scopes;
  info.atomicFenceCapabilities = orders | scopes | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM;
}

compiler::TargetDescription compilerTargetOf(const DeviceInfo &info) {
  compiler::TargetDescription target;
  // Every device's programs are compiled for SPIR64; the device's code generator retargets
  // them.
  target.triple = "spir64-unknown-unknown";
  for (const NamedVersion &version : info.openclCAllVersions)
    target.languageVersions.push_back(version.version);
  for (const NamedVersion &extension : info.extensions)
    target.extensions.push_back(extension.name);
  for (const NamedVersion &feature : info.openclCFeatures)
    target.features.push_back(feature.name);
  return target;
}

} // namespace kiln
