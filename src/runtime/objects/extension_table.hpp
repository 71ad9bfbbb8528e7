//===- extension_table.hpp - What Kiln offers, one row per name --------------===//
//
// Every extension and OpenCL C 3.0 feature the platform and its devices offer, with its version
// and who offers it. CL_PLATFORM_EXTENSIONS, each device's CL_DEVICE_EXTENSIONS,
// CL_DEVICE_EXTENSIONS_WITH_VERSION and CL_DEVICE_OPENCL_C_FEATURES, and the macros the OpenCL C
// compiler predefines for a device (each extension's and feature's own name, given to Clang with
// -cl-ext) all come from here: offering one more is one more row. Within each kind, the rows'
// order is the order of the queries' lists.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <CL/cl.h>

#include <string_view>

namespace kiln {

enum class OfferedKind { Extension, Feature };

struct OfferedName {
  std::string_view name;
  cl_version version;
  OfferedKind kind;
  cl_device_type devices;   // the types of device that offer it: CL_DEVICE_TYPE_CPU, _GPU
  bool platform = false;    // also a platform extension
  bool needsImages = false; // offered with image support only
  bool needsIl = false;     // offered where a SPIR-V translator is (support/spirv_translator.hpp)
};

inline constexpr cl_device_type kEveryDevice = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU;
inline constexpr cl_version kExtensionVersion = CL_MAKE_VERSION(1, 0, 0);
inline constexpr cl_version kFeatureVersion = CL_MAKE_VERSION(3, 0, 0);

inline constexpr OfferedName kOfferedNames[] = {
    // Extensions of the language and the API, every device.
    {"cl_khr_byte_addressable_store", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_fp64", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    // Half precision: the CPU computes half in float lanes (each result rounded to half, exact
    // for the basic operations), the GPU with its f16 instructions (sm_53+); the builtin
    // library's half functions go through float on both.
    {"cl_khr_fp16", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_global_int32_base_atomics", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_global_int32_extended_atomics", kExtensionVersion, OfferedKind::Extension,
     kEveryDevice},
    {"cl_khr_local_int32_base_atomics", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_local_int32_extended_atomics", kExtensionVersion, OfferedKind::Extension,
     kEveryDevice},
    {"cl_khr_int64_base_atomics", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_int64_extended_atomics", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_icd", kExtensionVersion, OfferedKind::Extension, kEveryDevice, true},
    {"cl_khr_extended_versioning", kExtensionVersion, OfferedKind::Extension, kEveryDevice, true},
    {"cl_khr_suggested_local_work_size", kExtensionVersion, OfferedKind::Extension, kEveryDevice,
     true},
    // SPIR-V programs (clCreateProgramWithILKHR; compiler/llvm/spirv_reader.hpp).
    {"cl_khr_il_program", kExtensionVersion, OfferedKind::Extension, kEveryDevice, true, false,
     true},
    // Atomic add, min and max on float and double in global and local memory (the builtin
    // library's atomics.cl; CL_DEVICE_{SINGLE,DOUBLE}_FP_ATOMIC_CAPABILITIES_EXT follow the
    // feature rows below).
    {"cl_ext_float_atomics", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    // Sub-groups (the builtin library's subgroups.cl): the CPU's SIMD groups, the GPU's warps.
    // The extension cl_khr_subgroups, unlike OpenCL 3.0's sub-groups, promises that sub-groups
    // make independent forward progress: the GPU's warps do, the CPU's waiting sub-groups yield.
    {"cl_khr_subgroups", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_extended_types", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_non_uniform_vote", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_ballot", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_non_uniform_arithmetic", kExtensionVersion, OfferedKind::Extension,
     kEveryDevice},
    {"cl_khr_subgroup_shuffle", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_shuffle_relative", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_clustered_reduce", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_khr_subgroup_rotate", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_intel_required_subgroup_size", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_intel_subgroups", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_intel_subgroups_char", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_intel_subgroups_short", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    {"cl_intel_subgroups_long", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    // Intel's unified shared memory (SYCL runtimes, chipStar), on SVM's allocations.
    {"cl_intel_unified_shared_memory", kExtensionVersion, OfferedKind::Extension, kEveryDevice},
    // Command buffers, replayed by the runtime (scheduling/command_buffer_replay.hpp); the
    // version whose entry points Kiln has (support/command_buffer_khr.hpp).
    {"cl_khr_command_buffer", CL_MAKE_VERSION(0, 9, 8), OfferedKind::Extension, kEveryDevice},
    {"cl_khr_command_buffer_mutable_dispatch", CL_MAKE_VERSION(0, 9, 5), OfferedKind::Extension,
     kEveryDevice},
    // NVIDIA's device queries (compute capability, registers, warp size), which programs read
    // to choose code for NVIDIA GPUs.
    {"cl_nv_device_attribute_query", kExtensionVersion, OfferedKind::Extension, CL_DEVICE_TYPE_GPU},
    // Images (the builtin library's, every device with image support).
    {"cl_khr_3d_image_writes", kExtensionVersion, OfferedKind::Extension, kEveryDevice, false,
     true},
    {"cl_khr_depth_images", kExtensionVersion, OfferedKind::Extension, kEveryDevice, false, true},
    {"cl_khr_image2d_from_buffer", kExtensionVersion, OfferedKind::Extension, kEveryDevice, false,
     true},
    // OpenCL C 3.0 features.
    {"__opencl_c_int64", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_fp64", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_fp16", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_atomic_order_acq_rel", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_atomic_order_seq_cst", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_atomic_scope_device", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_atomic_scope_all_devices", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_program_scope_global_variables", kFeatureVersion, OfferedKind::Feature,
     kEveryDevice},
    {"__opencl_c_generic_address_space", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    // Device-side enqueue (builtins/device_enqueue.cl, runtime/scheduling/device_enqueue.hpp).
    {"__opencl_c_device_enqueue", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_subgroups", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_ext_fp32_global_atomic_add", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_ext_fp32_local_atomic_add", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_ext_fp32_global_atomic_min_max", kFeatureVersion, OfferedKind::Feature,
     kEveryDevice},
    {"__opencl_c_ext_fp32_local_atomic_min_max", kFeatureVersion, OfferedKind::Feature,
     kEveryDevice},
    {"__opencl_c_ext_fp64_global_atomic_add", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_ext_fp64_local_atomic_add", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_ext_fp64_global_atomic_min_max", kFeatureVersion, OfferedKind::Feature,
     kEveryDevice},
    {"__opencl_c_ext_fp64_local_atomic_min_max", kFeatureVersion, OfferedKind::Feature,
     kEveryDevice},
    // The builtin library's work_group_collectives.cl, on the sub-group functions.
    {"__opencl_c_work_group_collective_functions", kFeatureVersion, OfferedKind::Feature,
     kEveryDevice},
    // The builtin library's pipes.cl, on memory every device of a context shares.
    {"__opencl_c_pipes", kFeatureVersion, OfferedKind::Feature, kEveryDevice},
    {"__opencl_c_images", kFeatureVersion, OfferedKind::Feature, kEveryDevice, false, true},
    {"__opencl_c_read_write_images", kFeatureVersion, OfferedKind::Feature, kEveryDevice, false,
     true},
    {"__opencl_c_3d_image_writes", kFeatureVersion, OfferedKind::Feature, kEveryDevice, false,
     true},
};

} // namespace kiln
