// Devices: every clGetDeviceInfo parameter of OpenCL 3.0 answers, with the size of its return
// type and with values consistent with the specification and with each other;
// clRetainDevice/clReleaseDevice and clCreateSubDevices.
#include "cl_test.hpp"

#include <map>
#include <regex>
#include <set>

using namespace cltest;

namespace {

struct Param {
  cl_device_info id;
  const char *name;
  size_t size; // the size of the return type; 0 for arrays and strings
};

#define P(name, type)                                                                              \
  { name, #name, sizeof(type) }
#define A(name)                                                                                    \
  { name, #name, 0 }

/// Every OpenCL 3.0 core device query, with its return type (the specification's Device Queries
/// table), including the deprecated CL_DEVICE_QUEUE_PROPERTIES, CL_DEVICE_HOST_UNIFIED_MEMORY and
/// CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, which OpenCL 3.0 still defines.
const std::vector<Param> &coreParams() {
  static const std::vector<Param> params = {
      P(CL_DEVICE_TYPE, cl_device_type),
      P(CL_DEVICE_VENDOR_ID, cl_uint),
      P(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint),
      P(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, cl_uint),
      A(CL_DEVICE_MAX_WORK_ITEM_SIZES),
      P(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, cl_uint),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, cl_uint),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, cl_uint),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, cl_uint),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, cl_uint),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, cl_uint),
      P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, cl_uint),
      P(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, cl_uint),
      P(CL_DEVICE_MAX_CLOCK_FREQUENCY, cl_uint),
      P(CL_DEVICE_ADDRESS_BITS, cl_uint),
      P(CL_DEVICE_MAX_MEM_ALLOC_SIZE, cl_ulong),
      P(CL_DEVICE_IMAGE_SUPPORT, cl_bool),
      P(CL_DEVICE_MAX_READ_IMAGE_ARGS, cl_uint),
      P(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, cl_uint),
      P(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, cl_uint),
      A(CL_DEVICE_IL_VERSION),
      A(CL_DEVICE_ILS_WITH_VERSION),
      P(CL_DEVICE_IMAGE2D_MAX_WIDTH, size_t),
      P(CL_DEVICE_IMAGE2D_MAX_HEIGHT, size_t),
      P(CL_DEVICE_IMAGE3D_MAX_WIDTH, size_t),
      P(CL_DEVICE_IMAGE3D_MAX_HEIGHT, size_t),
      P(CL_DEVICE_IMAGE3D_MAX_DEPTH, size_t),
      P(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, size_t),
      P(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, size_t),
      P(CL_DEVICE_MAX_SAMPLERS, cl_uint),
      P(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, cl_uint),
      P(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, cl_uint),
      P(CL_DEVICE_MAX_PIPE_ARGS, cl_uint),
      P(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, cl_uint),
      P(CL_DEVICE_PIPE_MAX_PACKET_SIZE, cl_uint),
      P(CL_DEVICE_MAX_PARAMETER_SIZE, size_t),
      P(CL_DEVICE_MEM_BASE_ADDR_ALIGN, cl_uint),
      P(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, cl_uint),
      P(CL_DEVICE_SINGLE_FP_CONFIG, cl_device_fp_config),
      P(CL_DEVICE_DOUBLE_FP_CONFIG, cl_device_fp_config),
      P(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cl_device_mem_cache_type),
      P(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, cl_uint),
      P(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cl_ulong),
      P(CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong),
      P(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, cl_ulong),
      P(CL_DEVICE_MAX_CONSTANT_ARGS, cl_uint),
      P(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, size_t),
      P(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, size_t),
      P(CL_DEVICE_LOCAL_MEM_TYPE, cl_device_local_mem_type),
      P(CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong),
      P(CL_DEVICE_ERROR_CORRECTION_SUPPORT, cl_bool),
      P(CL_DEVICE_HOST_UNIFIED_MEMORY, cl_bool),
      P(CL_DEVICE_PROFILING_TIMER_RESOLUTION, size_t),
      P(CL_DEVICE_ENDIAN_LITTLE, cl_bool),
      P(CL_DEVICE_AVAILABLE, cl_bool),
      P(CL_DEVICE_COMPILER_AVAILABLE, cl_bool),
      P(CL_DEVICE_LINKER_AVAILABLE, cl_bool),
      P(CL_DEVICE_EXECUTION_CAPABILITIES, cl_device_exec_capabilities),
      P(CL_DEVICE_QUEUE_PROPERTIES, cl_command_queue_properties),
      P(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, cl_command_queue_properties),
      P(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, cl_command_queue_properties),
      P(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, cl_uint),
      P(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, cl_uint),
      P(CL_DEVICE_MAX_ON_DEVICE_QUEUES, cl_uint),
      P(CL_DEVICE_MAX_ON_DEVICE_EVENTS, cl_uint),
      A(CL_DEVICE_BUILT_IN_KERNELS),
      A(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION),
      P(CL_DEVICE_PLATFORM, cl_platform_id),
      A(CL_DEVICE_NAME),
      A(CL_DEVICE_VENDOR),
      A(CL_DRIVER_VERSION),
      A(CL_DEVICE_PROFILE),
      A(CL_DEVICE_VERSION),
      P(CL_DEVICE_NUMERIC_VERSION, cl_version),
      A(CL_DEVICE_OPENCL_C_VERSION),
      A(CL_DEVICE_OPENCL_C_ALL_VERSIONS),
      A(CL_DEVICE_OPENCL_C_FEATURES),
      A(CL_DEVICE_EXTENSIONS),
      A(CL_DEVICE_EXTENSIONS_WITH_VERSION),
      P(CL_DEVICE_PRINTF_BUFFER_SIZE, size_t),
      P(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, cl_bool),
      P(CL_DEVICE_PARENT_DEVICE, cl_device_id),
      P(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, cl_uint),
      A(CL_DEVICE_PARTITION_PROPERTIES),
      P(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, cl_device_affinity_domain),
      A(CL_DEVICE_PARTITION_TYPE),
      P(CL_DEVICE_REFERENCE_COUNT, cl_uint),
      P(CL_DEVICE_SVM_CAPABILITIES, cl_device_svm_capabilities),
      P(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, cl_uint),
      P(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, cl_uint),
      P(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, cl_uint),
      P(CL_DEVICE_MAX_NUM_SUB_GROUPS, cl_uint),
      P(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, cl_bool),
      P(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, cl_device_atomic_capabilities),
      P(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, cl_device_atomic_capabilities),
      P(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, cl_bool),
      P(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, cl_bool),
      P(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, cl_bool),
      // A cl_bitfield (8 bytes); PoCL 3.1 answers with 4.
      P(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, cl_device_device_enqueue_capabilities),
      P(CL_DEVICE_PIPE_SUPPORT, cl_bool),
      P(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, size_t),
      A(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED),
  };
  return params;
}

/// Extension queries, asked only when the device lists the extension.
const std::vector<std::pair<std::string, Param>> &extensionParams() {
  static const std::vector<std::pair<std::string, Param>> params = {
      {"cl_khr_fp16", P(CL_DEVICE_HALF_FP_CONFIG, cl_device_fp_config)},
      {"cl_khr_extended_versioning", P(CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR, cl_version_khr)},
      {"cl_khr_device_uuid", {CL_DEVICE_UUID_KHR, "CL_DEVICE_UUID_KHR", CL_UUID_SIZE_KHR}},
      {"cl_khr_device_uuid", {CL_DRIVER_UUID_KHR, "CL_DRIVER_UUID_KHR", CL_UUID_SIZE_KHR}},
      {"cl_khr_device_uuid", P(CL_DEVICE_LUID_VALID_KHR, cl_bool)},
      {"cl_khr_device_uuid", {CL_DEVICE_LUID_KHR, "CL_DEVICE_LUID_KHR", CL_LUID_SIZE_KHR}},
      {"cl_khr_device_uuid", P(CL_DEVICE_NODE_MASK_KHR, cl_uint)},
  };
  return params;
}

#undef P
#undef A

class DeviceInfoTest : public ::testing::Test {
protected:
  cl_device_id device_ = device();

  bool flag(cl_device_info param) { return deviceInfo<cl_bool>(device_, param) == CL_TRUE; }
  cl_uint uint(cl_device_info param) { return deviceInfo<cl_uint>(device_, param); }
  cl_ulong ulong(cl_device_info param) { return deviceInfo<cl_ulong>(device_, param); }
  size_t sizeValue(cl_device_info param) { return deviceInfo<size_t>(device_, param); }
  std::string text(cl_device_info param) { return deviceString(device_, param); }
  std::vector<cl_name_version> versions(cl_device_info param) {
    return deviceArray<cl_name_version>(device_, param);
  }
  std::set<std::string> features() {
    std::set<std::string> names;
    for (const cl_name_version &entry : versions(CL_DEVICE_OPENCL_C_FEATURES))
      names.insert(entry.name);
    return names;
  }
  bool fullProfile() { return text(CL_DEVICE_PROFILE) == "FULL_PROFILE"; }
  bool isCustom() {
    return deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) == CL_DEVICE_TYPE_CUSTOM;
  }
};

void checkParam(cl_device_id device, const Param &param) {
  SCOPED_TRACE(param.name);
  size_t size = 0;
  ASSERT_CL_SUCCESS(clGetDeviceInfo(device, param.id, 0, nullptr, &size));
  if (param.size != 0)
    EXPECT_EQ(param.size, size) << "the size of the return type";
  std::vector<unsigned char> value(size + 64, 0xCD);
  size_t again = 0;
  EXPECT_CL_SUCCESS(clGetDeviceInfo(device, param.id, size, value.data(), &again));
  EXPECT_EQ(size, again);
  EXPECT_EQ(0xCD, value[size]) << "wrote past the reported size";
  EXPECT_CL_SUCCESS(clGetDeviceInfo(device, param.id, value.size(), value.data(), nullptr));
  if (size > 0) {
    // "CL_INVALID_VALUE if ... param_value_size is < size of return type ... and param_value is
    // not NULL".
    EXPECT_CL_ERROR(CL_INVALID_VALUE,
                    clGetDeviceInfo(device, param.id, size - 1, value.data(), nullptr));
  }
}

} // namespace

TEST_F(DeviceInfoTest, EveryCoreParameterAnswersWithTheSizeOfItsType) {
  for (const Param &param : coreParams())
    checkParam(device_, param);
}

TEST_F(DeviceInfoTest, EveryExtensionParameterAnswersWhenTheExtensionIsSupported) {
  for (const auto &[extension, param] : extensionParams())
    if (hasExtension(device_, extension))
      checkParam(device_, param);
}

TEST_F(DeviceInfoTest, UnknownParameterIsInvalidValue) {
  char value[256];
  size_t size = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetDeviceInfo(device_, 0x7FFF, sizeof value, value, &size));
  // A platform query is not a device query.
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetDeviceInfo(device_, CL_PLATFORM_NAME, sizeof value, value, &size));
}

TEST_F(DeviceInfoTest, NullDeviceIsInvalidDevice) {
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, clGetDeviceInfo(nullptr, CL_DEVICE_MAX_COMPUTE_UNITS,
                                                     sizeof value, &value, nullptr));
}

TEST_F(DeviceInfoTest, ForeignHandleIsInvalidDevice) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE,
                  clGetDeviceInfo(foreign.as<cl_device_id>(device_), CL_DEVICE_MAX_COMPUTE_UNITS,
                                  sizeof value, &value, nullptr));
}

TEST_F(DeviceInfoTest, MistypedHandleIsInvalidDevice) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE,
                  clGetDeviceInfo(reinterpret_cast<cl_device_id>(context.get()),
                                  CL_DEVICE_MAX_COMPUTE_UNITS, sizeof value, &value, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Values

TEST_F(DeviceInfoTest, TypeIsOneKnownType) {
  cl_device_type type = deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE);
  constexpr cl_device_type known = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                   CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM |
                                   CL_DEVICE_TYPE_DEFAULT;
  EXPECT_NE(0u, type);
  EXPECT_EQ(0u, type & ~known);
}

TEST_F(DeviceInfoTest, WorkGroupLimitsAreConsistent) {
  cl_uint dims = uint(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  EXPECT_GE(dims, 3u) << "the minimum for devices that are not CL_DEVICE_TYPE_CUSTOM";
  std::vector<size_t> sizes = deviceArray<size_t>(device_, CL_DEVICE_MAX_WORK_ITEM_SIZES);
  ASSERT_EQ(dims, sizes.size()) << "CL_DEVICE_MAX_WORK_ITEM_SIZES has one entry per dimension";
  size_t product = 1;
  for (size_t size : sizes) {
    EXPECT_GE(size, 1u);
    product = product > SIZE_MAX / size ? SIZE_MAX : product * size;
  }
  size_t maxGroup = sizeValue(CL_DEVICE_MAX_WORK_GROUP_SIZE);
  EXPECT_GE(maxGroup, 1u);
  EXPECT_LE(maxGroup, product);
  EXPECT_GE(uint(CL_DEVICE_MAX_COMPUTE_UNITS), 1u);
  EXPECT_GE(sizeValue(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE), 1u);
  EXPECT_LE(sizeValue(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE), maxGroup);
}

TEST_F(DeviceInfoTest, VectorWidthsArePositiveForMandatoryTypes) {
  for (cl_device_info param :
       {CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT})
    EXPECT_GT(uint(param), 0u) << "param 0x" << std::hex << param;
  if (fullProfile()) {
    EXPECT_GT(uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG), 0u);
    EXPECT_GT(uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG), 0u);
  }
  // "If double precision is not supported, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE must return
  // 0" (and likewise for half with cl_khr_fp16).
  bool fp64 = deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  EXPECT_EQ(fp64, uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE) != 0);
  EXPECT_EQ(fp64, uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE) != 0);
  bool fp16 = hasExtension(device_, "cl_khr_fp16");
  EXPECT_EQ(fp16, uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF) != 0);
  EXPECT_EQ(fp16, uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF) != 0);
}

TEST_F(DeviceInfoTest, MemoryLimitsMeetTheMinimums) {
  EXPECT_TRUE(uint(CL_DEVICE_ADDRESS_BITS) == 32 || uint(CL_DEVICE_ADDRESS_BITS) == 64);
  cl_ulong global = ulong(CL_DEVICE_GLOBAL_MEM_SIZE);
  cl_ulong maxAlloc = ulong(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  // max(min(1 GiB, 1/4 of CL_DEVICE_GLOBAL_MEM_SIZE), 32 MiB)
  cl_ulong minimum = std::max<cl_ulong>(std::min<cl_ulong>(1ull << 30, global / 4), 32ull << 20);
  EXPECT_GE(maxAlloc, minimum);
  EXPECT_LE(maxAlloc, global);
  if (!isCustom()) {
    EXPECT_GE(ulong(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE), 64u * 1024);
    EXPECT_GE(uint(CL_DEVICE_MAX_CONSTANT_ARGS), 8u);
    EXPECT_GE(ulong(CL_DEVICE_LOCAL_MEM_SIZE), 32u * 1024);
    cl_device_local_mem_type local =
        deviceInfo<cl_device_local_mem_type>(device_, CL_DEVICE_LOCAL_MEM_TYPE);
    EXPECT_TRUE(local == CL_LOCAL || local == CL_GLOBAL) << local;
  }
  EXPECT_GE(sizeValue(CL_DEVICE_MAX_PARAMETER_SIZE), 1024u);
  // The size in bits of the largest OpenCL C type (long16 in FULL_PROFILE), a power of two.
  cl_uint align = uint(CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  EXPECT_GE(align, fullProfile() ? 1024u : 512u);
  EXPECT_EQ(0u, align & (align - 1));
  cl_device_mem_cache_type cache =
      deviceInfo<cl_device_mem_cache_type>(device_, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE);
  EXPECT_TRUE(cache == CL_NONE || cache == CL_READ_ONLY_CACHE || cache == CL_READ_WRITE_CACHE);
  if (fullProfile())
    EXPECT_GE(sizeValue(CL_DEVICE_PRINTF_BUFFER_SIZE), 1024u * 1024);
}

TEST_F(DeviceInfoTest, FloatingPointConfigsMeetTheMinimums) {
  cl_device_fp_config single = deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_SINGLE_FP_CONFIG);
  if (fullProfile() && !isCustom()) {
    constexpr cl_device_fp_config required = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN;
    EXPECT_EQ(required, single & required);
  }
  cl_device_fp_config dbl = deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_DOUBLE_FP_CONFIG);
  if (dbl != 0) {
    // "If double precision is supported by the device, then the minimum double precision
    // floating-point capability must be: CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN |
    // CL_FP_DENORM."
    constexpr cl_device_fp_config required =
        CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM;
    EXPECT_EQ(required, dbl & required);
  }
}

TEST_F(DeviceInfoTest, AvailabilityAndCapabilities) {
  EXPECT_TRUE(flag(CL_DEVICE_AVAILABLE));
  if (fullProfile())
    EXPECT_TRUE(flag(CL_DEVICE_COMPILER_AVAILABLE)) << "may be CL_FALSE for EMBEDDED_PROFILE only";
  // "This value must be CL_TRUE if CL_DEVICE_COMPILER_AVAILABLE is CL_TRUE."
  if (flag(CL_DEVICE_COMPILER_AVAILABLE))
    EXPECT_TRUE(flag(CL_DEVICE_LINKER_AVAILABLE));
  cl_device_exec_capabilities exec =
      deviceInfo<cl_device_exec_capabilities>(device_, CL_DEVICE_EXECUTION_CAPABILITIES);
  EXPECT_TRUE(exec & CL_EXEC_KERNEL) << "the mandated minimum capability";
  EXPECT_EQ(0u, exec & ~cl_device_exec_capabilities{CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL});
}

TEST_F(DeviceInfoTest, HostQueuePropertiesIncludeProfilingAndMatchTheDeprecatedQuery) {
  auto onHost =
      deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
  EXPECT_TRUE(onHost & CL_QUEUE_PROFILING_ENABLE) << "the mandated minimum capability";
  EXPECT_EQ(onHost, deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_PROPERTIES));
  EXPECT_EQ(0u, onHost & ~cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE |
                                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE});
}

TEST_F(DeviceInfoTest, DeviceEnqueueQueriesAgreeWithTheCapabilities) {
  auto caps = deviceInfo<cl_device_device_enqueue_capabilities>(
      device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
  if (caps == 0) {
    // Appendix H: without device-side enqueue the queries about on-device queues return 0.
    EXPECT_EQ(
        0u, deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES));
    EXPECT_EQ(0u, uint(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE));
    EXPECT_EQ(0u, uint(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE));
    EXPECT_EQ(0u, uint(CL_DEVICE_MAX_ON_DEVICE_QUEUES));
    EXPECT_EQ(0u, uint(CL_DEVICE_MAX_ON_DEVICE_EVENTS));
  } else {
    EXPECT_TRUE(caps & CL_DEVICE_QUEUE_SUPPORTED);
  }
}

TEST_F(DeviceInfoTest, PipeQueriesAgreeWithPipeSupport) {
  if (!flag(CL_DEVICE_PIPE_SUPPORT)) {
    EXPECT_EQ(0u, uint(CL_DEVICE_MAX_PIPE_ARGS));
    EXPECT_EQ(0u, uint(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS));
    EXPECT_EQ(0u, uint(CL_DEVICE_PIPE_MAX_PACKET_SIZE));
  }
}

TEST_F(DeviceInfoTest, SubGroupQueriesAgreeWithEachOther) {
  if (uint(CL_DEVICE_MAX_NUM_SUB_GROUPS) == 0)
    EXPECT_FALSE(flag(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS));
}

TEST_F(DeviceInfoTest, ImageLimitsMeetTheMinimumsWhenImagesAreSupported) {
  if (!flag(CL_DEVICE_IMAGE_SUPPORT))
    GTEST_SKIP() << "no image support";
  EXPECT_GE(uint(CL_DEVICE_MAX_READ_IMAGE_ARGS), 8u);
  EXPECT_GE(uint(CL_DEVICE_MAX_WRITE_IMAGE_ARGS), 8u);
  EXPECT_GE(sizeValue(CL_DEVICE_IMAGE2D_MAX_WIDTH), 2048u);
  EXPECT_GE(sizeValue(CL_DEVICE_IMAGE2D_MAX_HEIGHT), 2048u);
  EXPECT_GE(uint(CL_DEVICE_MAX_SAMPLERS), 8u);
}

TEST_F(DeviceInfoTest, SvmAndAtomicCapabilitiesMeetTheMinimums) {
  auto svm = deviceInfo<cl_device_svm_capabilities>(device_, CL_DEVICE_SVM_CAPABILITIES);
  if (svm != 0)
    EXPECT_TRUE(svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
  auto memory =
      deviceInfo<cl_device_atomic_capabilities>(device_, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  auto fence =
      deviceInfo<cl_device_atomic_capabilities>(device_, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
  constexpr cl_device_atomic_capabilities memoryMinimum =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  constexpr cl_device_atomic_capabilities fenceMinimum = CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                                         CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                                         CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  EXPECT_EQ(memoryMinimum, memory & memoryMinimum);
  EXPECT_EQ(fenceMinimum, fence & fenceMinimum);
}

TEST_F(DeviceInfoTest, RootDeviceHasNoParentAndReferenceCountOne) {
  EXPECT_EQ(nullptr, deviceInfo<cl_device_id>(device_, CL_DEVICE_PARENT_DEVICE));
  // "If the device is a root-level device, a reference count of one is returned."
  EXPECT_EQ(1u, uint(CL_DEVICE_REFERENCE_COUNT));
  EXPECT_EQ(platform(), deviceInfo<cl_platform_id>(device_, CL_DEVICE_PLATFORM));
  EXPECT_LE(uint(CL_DEVICE_PARTITION_MAX_SUB_DEVICES), uint(CL_DEVICE_MAX_COMPUTE_UNITS));
}

TEST_F(DeviceInfoTest, PartitionPropertiesAreAZeroTerminatedListOfKnownSchemes) {
  auto properties =
      deviceArray<cl_device_partition_property>(device_, CL_DEVICE_PARTITION_PROPERTIES);
  // "If the device cannot be partitioned ... a value of 0 will be returned."
  ASSERT_FALSE(properties.empty());
  for (cl_device_partition_property property : properties)
    EXPECT_TRUE(property == 0 || property == CL_DEVICE_PARTITION_EQUALLY ||
                property == CL_DEVICE_PARTITION_BY_COUNTS ||
                property == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN)
        << property;
  // A root device has no partition type: size 0 or a single 0.
  auto type = deviceArray<cl_device_partition_property>(device_, CL_DEVICE_PARTITION_TYPE);
  EXPECT_TRUE(type.empty() || type[0] == 0);
}

// ---------------------------------------------------------------------------------------------
// Versions, extensions and features

TEST_F(DeviceInfoTest, VersionStringsHaveTheRequiredFormats) {
  std::smatch match;
  std::string version = text(CL_DEVICE_VERSION);
  // "OpenCL<space><major_version.minor_version><space><vendor-specific information>"
  ASSERT_TRUE(std::regex_match(version, match, std::regex(R"(OpenCL (\d+)\.(\d+) (.*))")))
      << '"' << version << '"';
  cl_version numeric = deviceInfo<cl_version>(device_, CL_DEVICE_NUMERIC_VERSION);
  EXPECT_EQ(std::stoul(match[1]), CL_VERSION_MAJOR(numeric));
  EXPECT_EQ(std::stoul(match[2]), CL_VERSION_MINOR(numeric));

  std::string profile = text(CL_DEVICE_PROFILE);
  EXPECT_TRUE(profile == "FULL_PROFILE" || profile == "EMBEDDED_PROFILE") << profile;
  EXPECT_FALSE(text(CL_DEVICE_NAME).empty());
  EXPECT_FALSE(text(CL_DEVICE_VENDOR).empty());
  // CL_DRIVER_VERSION and CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED follow vendor-specific
  // formats: only their being strings is checked (EveryCoreParameterAnswers...).
}

TEST_F(DeviceInfoTest, OpenCLCVersionIsListedInAllVersions) {
  if (!flag(CL_DEVICE_COMPILER_AVAILABLE))
    GTEST_SKIP() << "no compiler";
  std::smatch match;
  std::string version = text(CL_DEVICE_OPENCL_C_VERSION);
  // "OpenCL<space>C<space><major_version.minor_version><space><vendor-specific information>"
  ASSERT_TRUE(std::regex_match(version, match, std::regex(R"(OpenCL C (\d+)\.(\d+) (.*))")))
      << '"' << version << '"';
  cl_uint major = std::stoul(match[1]), minor = std::stoul(match[2]);
  EXPECT_TRUE(supportsOpenCLC(device_, major, minor)) << "not in CL_DEVICE_OPENCL_C_ALL_VERSIONS";
  for (const cl_name_version &entry : versions(CL_DEVICE_OPENCL_C_ALL_VERSIONS))
    EXPECT_STREQ("OpenCL C", entry.name);
  // An OpenCL 3.0 device supports OpenCL C 1.2 or newer as its "fully backwards compatible"
  // version, and at least OpenCL C 3.0, 1.2, 1.1 and 1.0 in the list.
  cl_version device = deviceVersion(device_);
  if (CL_VERSION_MAJOR(device) == 3 && CL_VERSION_MINOR(device) == 0) {
    EXPECT_GE(major * 10 + minor, 12u);
    for (auto [maj, min] : {std::pair{1u, 0u}, {1u, 1u}, {1u, 2u}, {3u, 0u}})
      EXPECT_TRUE(supportsOpenCLC(device_, maj, min)) << "OpenCL C " << maj << '.' << min;
  }
  if (hasExtension(device_, "cl_khr_extended_versioning")) {
    // "The major and minor version numbers returned must match those returned via
    // CL_DEVICE_OPENCL_C_VERSION."
    cl_version_khr numeric =
        deviceInfo<cl_version_khr>(device_, CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR);
    EXPECT_EQ(major, CL_VERSION_MAJOR_KHR(numeric));
    EXPECT_EQ(minor, CL_VERSION_MINOR_KHR(numeric));
  }
}

TEST_F(DeviceInfoTest, ExtensionsMatchExtensionsWithVersion) {
  std::vector<std::string> names = split(text(CL_DEVICE_EXTENSIONS), ' ');
  std::set<std::string> fromString(names.begin(), names.end());
  EXPECT_EQ(names.size(), fromString.size()) << "duplicate extension names";
  std::set<std::string> fromVersions;
  for (const cl_name_version &entry : versions(CL_DEVICE_EXTENSIONS_WITH_VERSION)) {
    ASSERT_NE(nullptr, std::memchr(entry.name, '\0', CL_NAME_VERSION_MAX_NAME_SIZE));
    EXPECT_TRUE(fromVersions.insert(entry.name).second) << "duplicate " << entry.name;
  }
  EXPECT_EQ(fromString, fromVersions);
}

TEST_F(DeviceInfoTest, ILsAndBuiltInKernelsMatchTheirVersionedLists) {
  std::vector<std::string> ils = split(text(CL_DEVICE_IL_VERSION), ' ');
  EXPECT_EQ(ils.size(), versions(CL_DEVICE_ILS_WITH_VERSION).size());
  std::vector<std::string> kernels = split(text(CL_DEVICE_BUILT_IN_KERNELS), ';');
  std::set<std::string> kernelNames(kernels.begin(), kernels.end());
  std::set<std::string> versioned;
  for (const cl_name_version &entry : versions(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION))
    versioned.insert(entry.name);
  EXPECT_EQ(kernelNames, versioned);
}

TEST_F(DeviceInfoTest, OpenCLCFeaturesAreVersioned30) {
  for (const cl_name_version &entry : versions(CL_DEVICE_OPENCL_C_FEATURES)) {
    EXPECT_EQ(0, std::strncmp(entry.name, "__opencl_c_", 11)) << entry.name;
    // "the returned version will be 3.0.0" for OpenCL C 3.0 features.
    EXPECT_EQ(3u, CL_VERSION_MAJOR(entry.version)) << entry.name;
  }
}

TEST_F(DeviceInfoTest, OpenCLCFeaturesAgreeWithTheDeviceQueries) {
  if (!flag(CL_DEVICE_COMPILER_AVAILABLE))
    GTEST_SKIP() << "no compiler";
  std::set<std::string> have = features();
  auto has = [&](const char *feature) { return have.count(feature) > 0; };
  // Appendix H of the API specification pairs each optional feature with its query.
  EXPECT_EQ(flag(CL_DEVICE_IMAGE_SUPPORT), has("__opencl_c_images"));
  EXPECT_EQ(uint(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS) > 0, has("__opencl_c_read_write_images"));
  EXPECT_EQ(flag(CL_DEVICE_PIPE_SUPPORT), has("__opencl_c_pipes"));
  EXPECT_EQ(flag(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT), has("__opencl_c_generic_address_space"));
  EXPECT_EQ(flag(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT),
            has("__opencl_c_work_group_collective_functions"));
  EXPECT_EQ(deviceInfo<cl_device_device_enqueue_capabilities>(
                device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES) != 0,
            has("__opencl_c_device_enqueue"));
  EXPECT_EQ(sizeValue(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) > 0,
            has("__opencl_c_program_scope_global_variables"));
  EXPECT_EQ(uint(CL_DEVICE_MAX_NUM_SUB_GROUPS) > 0, has("__opencl_c_subgroups"));
  EXPECT_EQ(deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_DOUBLE_FP_CONFIG) != 0,
            has("__opencl_c_fp64"));
  // Features that began as extensions come with their extension.
  EXPECT_EQ(hasExtension(device_, "cl_khr_fp64"), has("__opencl_c_fp64"));
  EXPECT_EQ(hasExtension(device_, "cl_khr_3d_image_writes"), has("__opencl_c_3d_image_writes"));
  EXPECT_EQ(hasExtension(device_, "cl_khr_fp16"), has("__opencl_c_fp16"));
  // "OpenCL C compilers for FULL profile devices or devices with 64-bit pointers must always
  // define the __opencl_c_int64 feature macro."
  if (fullProfile() || uint(CL_DEVICE_ADDRESS_BITS) == 64)
    EXPECT_TRUE(has("__opencl_c_int64"));
  // Dependencies between features (OpenCL C specification, optional features table).
  if (has("__opencl_c_3d_image_writes") || has("__opencl_c_read_write_images"))
    EXPECT_TRUE(has("__opencl_c_images"));
  if (has("__opencl_c_device_enqueue"))
    EXPECT_TRUE(has("__opencl_c_generic_address_space") &&
                has("__opencl_c_program_scope_global_variables"));
  if (has("__opencl_c_pipes"))
    EXPECT_TRUE(has("__opencl_c_generic_address_space"));
  if (sizeValue(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) > 0)
    EXPECT_GE(sizeValue(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE), 64u * 1024)
        << "the minimum when program scope global variables are supported";
}

TEST_F(DeviceInfoTest, AtomicFeaturesAgreeWithTheAtomicCapabilities) {
  std::set<std::string> have = features();
  auto memory =
      deviceInfo<cl_device_atomic_capabilities>(device_, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  auto fence =
      deviceInfo<cl_device_atomic_capabilities>(device_, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
  if (have.count("__opencl_c_atomic_order_acq_rel"))
    EXPECT_TRUE(memory & CL_DEVICE_ATOMIC_ORDER_ACQ_REL);
  // "atomic operations and fences" for the others.
  if (have.count("__opencl_c_atomic_order_seq_cst"))
    EXPECT_TRUE((memory & fence) & CL_DEVICE_ATOMIC_ORDER_SEQ_CST);
  if (have.count("__opencl_c_atomic_scope_device"))
    EXPECT_TRUE((memory & fence) & CL_DEVICE_ATOMIC_SCOPE_DEVICE);
  if (have.count("__opencl_c_atomic_scope_all_devices"))
    EXPECT_TRUE((memory & fence) & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
}

// ---------------------------------------------------------------------------------------------
// Retain/release and sub-devices

TEST_F(DeviceInfoTest, RetainAndReleaseOfARootDeviceSucceedAndKeepTheCount) {
  EXPECT_CL_SUCCESS(clRetainDevice(device_));
  EXPECT_CL_SUCCESS(clReleaseDevice(device_));
  // "clRetainDevice/clReleaseDevice ... on a root level device ... the reference count remains
  // unchanged".
  EXPECT_EQ(1u, uint(CL_DEVICE_REFERENCE_COUNT));
}

TEST_F(DeviceInfoTest, RetainAndReleaseOfAnInvalidDeviceFail) {
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, clRetainDevice(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, clReleaseDevice(nullptr));
}

TEST_F(DeviceInfoTest, CreateSubDevicesWithoutPropertiesIsInvalidValue) {
  cl_uint count = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clCreateSubDevices(device_, nullptr, 0, nullptr, &count));
}

TEST_F(DeviceInfoTest, UnsupportedPartitionSchemeIsInvalidValue) {
  auto supported =
      deviceArray<cl_device_partition_property>(device_, CL_DEVICE_PARTITION_PROPERTIES);
  if (std::find(supported.begin(), supported.end(), CL_DEVICE_PARTITION_EQUALLY) != supported.end())
    GTEST_SKIP() << "the device can be partitioned equally";
  // "CL_INVALID_VALUE if values specified in properties are not valid or if values specified in
  // properties are valid but not supported by the device."
  cl_device_partition_property properties[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_uint count = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clCreateSubDevices(device_, properties, 0, nullptr, &count));
}
