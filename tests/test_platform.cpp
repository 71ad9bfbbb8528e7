// Platforms: clGetPlatformIDs, clGetPlatformInfo, clGetDeviceIDs, clUnloadPlatformCompiler,
// clGetExtensionFunctionAddressForPlatform, the host timer.
#include "cl_test.hpp"

#include <dlfcn.h>

#include <regex>
#include <set>
#include <thread>

using namespace cltest;

namespace {

/// Every clGetPlatformInfo parameter of OpenCL 3.0 (and cl_khr_icd's suffix).
std::vector<cl_platform_info> platformParams() {
  std::vector<cl_platform_info> params = {CL_PLATFORM_PROFILE,
                                          CL_PLATFORM_VERSION,
                                          CL_PLATFORM_NUMERIC_VERSION,
                                          CL_PLATFORM_NAME,
                                          CL_PLATFORM_VENDOR,
                                          CL_PLATFORM_EXTENSIONS,
                                          CL_PLATFORM_EXTENSIONS_WITH_VERSION,
                                          CL_PLATFORM_HOST_TIMER_RESOLUTION};
  std::vector<std::string> extensions =
      split(platformString(platform(), CL_PLATFORM_EXTENSIONS), ' ');
  if (std::find(extensions.begin(), extensions.end(), "cl_khr_icd") != extensions.end())
    params.push_back(CL_PLATFORM_ICD_SUFFIX_KHR);
  return params;
}

std::set<std::string> nameSet(const std::vector<cl_name_version> &list) {
  std::set<std::string> names;
  for (const cl_name_version &entry : list) {
    EXPECT_NE(nullptr, std::memchr(entry.name, '\0', CL_NAME_VERSION_MAX_NAME_SIZE))
        << "cl_name_version name not NUL-terminated";
    names.insert(entry.name);
  }
  return names;
}

} // namespace

TEST(PlatformIds, CountQueryReportsAtLeastOne) {
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetPlatformIDs(0, nullptr, &count));
  EXPECT_GE(count, 1u);
}

TEST(PlatformIds, FewerEntriesThanPlatformsFillsOnlyThoseEntries) {
  cl_uint count = 0;
  cl_platform_id first[2] = {nullptr, reinterpret_cast<cl_platform_id>(0x1)};
  ASSERT_CL_SUCCESS(clGetPlatformIDs(1, first, &count));
  EXPECT_NE(nullptr, first[0]);
  EXPECT_EQ(reinterpret_cast<cl_platform_id>(0x1), first[1]) << "wrote past num_entries";
  EXPECT_EQ(first[0], platform());
}

TEST(PlatformIds, ZeroEntriesWithAnArrayIsInvalidValue) {
  cl_platform_id platforms[1];
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetPlatformIDs(0, platforms, nullptr));
}

TEST(PlatformIds, BothOutputsNullIsInvalidValue) {
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetPlatformIDs(1, nullptr, nullptr));
}

TEST(PlatformInfo, EveryParameterAnswersWithConsistentSizes) {
  for (cl_platform_info param : platformParams()) {
    SCOPED_TRACE("param 0x" + [&] {
      std::ostringstream hex;
      hex << std::hex << param;
      return hex.str();
    }());
    size_t size = 0;
    ASSERT_CL_SUCCESS(clGetPlatformInfo(platform(), param, 0, nullptr, &size));
    ASSERT_GT(size, 0u);
    std::vector<unsigned char> value(size + 16, 0xAB);
    size_t again = 0;
    EXPECT_CL_SUCCESS(clGetPlatformInfo(platform(), param, size, value.data(), &again));
    EXPECT_EQ(size, again);
    // A larger buffer is fine and the reported size does not change.
    EXPECT_CL_SUCCESS(clGetPlatformInfo(platform(), param, value.size(), value.data(), &again));
    EXPECT_EQ(size, again);
    // param_value_size_ret may be NULL.
    EXPECT_CL_SUCCESS(clGetPlatformInfo(platform(), param, size, value.data(), nullptr));
    // The specification: CL_INVALID_VALUE if param_value_size < size of the return type and
    // param_value is not NULL.
    EXPECT_CL_ERROR(CL_INVALID_VALUE,
                    clGetPlatformInfo(platform(), param, size - 1, value.data(), nullptr));
    EXPECT_CL_ERROR(CL_INVALID_VALUE,
                    clGetPlatformInfo(platform(), param, 0, value.data(), nullptr));
  }
}

TEST(PlatformInfo, ProfileIsFullOrEmbedded) {
  std::string profile = platformString(platform(), CL_PLATFORM_PROFILE);
  EXPECT_TRUE(profile == "FULL_PROFILE" || profile == "EMBEDDED_PROFILE") << profile;
}

TEST(PlatformInfo, VersionStringHasTheRequiredFormatAndMatchesNumericVersion) {
  // "OpenCL<space><major_version.minor_version><space><platform-specific information>"
  std::string version = platformString(platform(), CL_PLATFORM_VERSION);
  std::smatch match;
  ASSERT_TRUE(std::regex_match(version, match, std::regex(R"(OpenCL (\d+)\.(\d+) (.*))")))
      << '"' << version << '"';
  cl_version numeric = platformInfo<cl_version>(platform(), CL_PLATFORM_NUMERIC_VERSION);
  EXPECT_EQ(std::stoul(match[1]), CL_VERSION_MAJOR(numeric));
  EXPECT_EQ(std::stoul(match[2]), CL_VERSION_MINOR(numeric));
  EXPECT_GE(CL_VERSION_MAJOR(numeric), 3u) << "the suite tests an OpenCL 3.0 platform";
}

TEST(PlatformInfo, NameAndVendorAreNotEmpty) {
  EXPECT_FALSE(platformString(platform(), CL_PLATFORM_NAME).empty());
  EXPECT_FALSE(platformString(platform(), CL_PLATFORM_VENDOR).empty());
}

TEST(PlatformInfo, ExtensionsMatchExtensionsWithVersion) {
  std::vector<std::string> names = split(platformString(platform(), CL_PLATFORM_EXTENSIONS), ' ');
  std::set<std::string> fromString(names.begin(), names.end());
  EXPECT_EQ(names.size(), fromString.size()) << "duplicate extension names";
  auto withVersion = queryArray<cl_name_version>([](size_t s, void *v, size_t *r) {
    return clGetPlatformInfo(platform(), CL_PLATFORM_EXTENSIONS_WITH_VERSION, s, v, r);
  });
  EXPECT_EQ(fromString, nameSet(withVersion));
}

TEST(PlatformInfo, ReachedThroughTheLoaderSoItSupportsKhrIcd) {
  std::vector<std::string> names = split(platformString(platform(), CL_PLATFORM_EXTENSIONS), ' ');
  EXPECT_NE(names.end(), std::find(names.begin(), names.end(), "cl_khr_icd"));
  EXPECT_FALSE(platformString(platform(), CL_PLATFORM_ICD_SUFFIX_KHR).empty());
}

TEST(PlatformInfo, PlatformExtensionsAreSupportedByEveryDevice) {
  // "Extensions defined here must be supported by all devices associated with this platform."
  // (PoCL 3.1 lists cl_khr_icd and cl_pocl_content_size for the platform only.)
  std::vector<std::string> names = split(platformString(platform(), CL_PLATFORM_EXTENSIONS), ' ');
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  std::vector<cl_device_id> devices(count);
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr));
  for (cl_device_id device : devices)
    for (const std::string &name : names)
      EXPECT_TRUE(hasExtension(device, name)) << name << " missing from a device";
}

TEST(PlatformInfo, UnknownParameterIsInvalidValue) {
  char value[256];
  size_t size = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetPlatformInfo(platform(), 0x7FFF, sizeof value, value, &size));
  // A device query is not a platform query.
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetPlatformInfo(platform(), CL_DEVICE_NAME, sizeof value, value, &size));
}

TEST(PlatformInfo, ForeignHandleIsInvalidPlatform) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  char value[64];
  EXPECT_CL_ERROR(CL_INVALID_PLATFORM,
                  clGetPlatformInfo(foreign.as<cl_platform_id>(platform()), CL_PLATFORM_NAME,
                                    sizeof value, value, nullptr));
}

TEST(PlatformInfo, MistypedHandleIsInvalidPlatform) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  char value[64];
  // A device handle is not a platform handle.
  EXPECT_CL_ERROR(CL_INVALID_PLATFORM,
                  clGetPlatformInfo(reinterpret_cast<cl_platform_id>(device()), CL_PLATFORM_NAME,
                                    sizeof value, value, nullptr));
}

// ---------------------------------------------------------------------------------------------

TEST(DeviceIds, AllIncludesTheDefaultDevice) {
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  ASSERT_GE(count, 1u);
  std::vector<cl_device_id> all(count);
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, count, all.data(), nullptr));

  cl_uint defaultCount = 0;
  cl_device_id defaultDevice = nullptr;
  ASSERT_CL_SUCCESS(
      clGetDeviceIDs(platform(), CL_DEVICE_TYPE_DEFAULT, 1, &defaultDevice, &defaultCount));
  // "CL_DEVICE_TYPE_DEFAULT: the default OpenCL device in the platform" - exactly one.
  EXPECT_EQ(1u, defaultCount);
  EXPECT_NE(all.end(), std::find(all.begin(), all.end(), defaultDevice));
}

TEST(DeviceIds, EachTypeReturnsOnlyDevicesOfThatType) {
  for (cl_device_type type : {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR}) {
    cl_uint count = 0;
    cl_int error = clGetDeviceIDs(platform(), type, 0, nullptr, &count);
    if (error == CL_DEVICE_NOT_FOUND)
      continue;
    ASSERT_CL_SUCCESS(error);
    std::vector<cl_device_id> devices(count);
    ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), type, count, devices.data(), nullptr));
    for (cl_device_id device : devices)
      EXPECT_NE(0u, deviceInfo<cl_device_type>(device, CL_DEVICE_TYPE) & type);
  }
}

/// The GPUs the CUDA driver of this machine reports; 0 without a driver.
static int cudaDriverGpuCount() {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr)
    return 0;
  auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<int (*)(int *)>(dlsym(cuda, "cuDeviceGetCount"));
  int gpus = 0;
  if (init == nullptr || count == nullptr || init(0) != 0 || count(&gpus) != 0)
    gpus = 0;
  dlclose(cuda);
  return gpus;
}

// Kiln opens the CUDA driver only where there is one: without it the platform has its CPU device
// alone (and loading Kiln costs nothing more), with it one GPU device per GPU beside the CPU.
TEST(DeviceIds, KilnHasOneGpuDevicePerGpuOfTheCudaDriver) {
  if (!isKiln())
    GTEST_SKIP() << "Kiln's own devices";
  cl_uint cpus = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_CPU, 0, nullptr, &cpus));
  EXPECT_EQ(1u, cpus);
  cl_uint gpus = 0;
  cl_int error = clGetDeviceIDs(platform(), CL_DEVICE_TYPE_GPU, 0, nullptr, &gpus);
  int expected = cudaDriverGpuCount();
  if (expected == 0) {
    EXPECT_CL_ERROR(CL_DEVICE_NOT_FOUND, error);
    return;
  }
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(static_cast<cl_uint>(expected), gpus);
  std::vector<cl_device_id> devices(gpus);
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_GPU, gpus, devices.data(), nullptr));
  for (cl_device_id gpu : devices) {
    EXPECT_EQ(0x10deu, deviceInfo<cl_uint>(gpu, CL_DEVICE_VENDOR_ID));
    EXPECT_GE(deviceInfo<size_t>(gpu, CL_DEVICE_MAX_WORK_GROUP_SIZE), 1024u);
    EXPECT_EQ(32u, deviceInfo<size_t>(gpu, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE));
  }
}

TEST(DeviceIds, TypeWithoutDevicesIsDeviceNotFound) {
  // Find a type no device of the platform has.
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  std::vector<cl_device_id> all(count);
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, count, all.data(), nullptr));
  cl_device_type present = 0;
  for (cl_device_id device : all)
    present |= deviceInfo<cl_device_type>(device, CL_DEVICE_TYPE);
  for (cl_device_type type :
       {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM}) {
    if (present & type)
      continue;
    cl_device_id device = nullptr;
    cl_uint found = 99;
    EXPECT_CL_ERROR(CL_DEVICE_NOT_FOUND, clGetDeviceIDs(platform(), type, 1, &device, &found));
  }
}

TEST(DeviceIds, FewerEntriesThanDevicesFillsOnlyThoseEntries) {
  cl_device_id devices[2] = {nullptr, reinterpret_cast<cl_device_id>(0x1)};
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 1, devices, &count));
  EXPECT_NE(nullptr, devices[0]);
  EXPECT_EQ(reinterpret_cast<cl_device_id>(0x1), devices[1]) << "wrote past num_entries";
  EXPECT_GE(count, 1u);
}

// "CL_INVALID_DEVICE_TYPE if device_type is not a valid value" (PoCL 3.1: CL_DEVICE_NOT_FOUND).
TEST(DeviceIds, InvalidDeviceTypeIsInvalidDeviceType) {
  cl_device_id device = nullptr;
  cl_uint count = 0;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_TYPE, clGetDeviceIDs(platform(), 0, 1, &device, &count));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_TYPE,
                  clGetDeviceIDs(platform(), cl_device_type{1} << 40, 1, &device, &count));
}

TEST(DeviceIds, ZeroEntriesWithAnArrayIsInvalidValue) {
  cl_device_id device = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 0, &device, nullptr));
}

TEST(DeviceIds, BothOutputsNullIsInvalidValue) {
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 1, nullptr, nullptr));
}

TEST(DeviceIds, ForeignPlatformIsInvalidPlatform) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_uint count = 0;
  EXPECT_CL_ERROR(CL_INVALID_PLATFORM, clGetDeviceIDs(foreign.as<cl_platform_id>(platform()),
                                                      CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
}

TEST(DeviceIds, DevicesBelongToThePlatform) {
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  std::vector<cl_device_id> all(count);
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, count, all.data(), nullptr));
  for (cl_device_id device : all)
    EXPECT_EQ(platform(), deviceInfo<cl_platform_id>(device, CL_DEVICE_PLATFORM));
}

// ---------------------------------------------------------------------------------------------

TEST(Platform, UnloadPlatformCompilerSucceedsAndBuildsStillWork) {
  EXPECT_CL_SUCCESS(clUnloadPlatformCompiler(platform()));
  // The compiler is only a hint to unload: later builds must still work. (Source programs only
  // need a context here; building them is tested in test_program.cpp.)
  cl_int error = CL_SUCCESS;
  cl_device_id dev = device();
  Context context(clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  const char *source = "kernel void k(global int *p) { p[0] = 1; }";
  Program program(clCreateProgramWithSource(context, 1, &source, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
}

TEST(Platform, UnknownExtensionFunctionIsNull) {
  EXPECT_EQ(nullptr, clGetExtensionFunctionAddressForPlatform(platform(), "clNoSuchFunctionKHR"));
}

TEST(HostTimer, IsMonotonicWhenSupported) {
  cl_ulong resolution = platformInfo<cl_ulong>(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION);
  cl_ulong first = 0, second = 0;
  if (resolution == 0) {
    // "CL_INVALID_OPERATION if the platform associated with device does not support device and
    // host timer synchronization".
    EXPECT_CL_ERROR(CL_INVALID_OPERATION, clGetHostTimer(device(), &first));
    GTEST_SKIP() << "no host timer";
  }
  ASSERT_CL_SUCCESS(clGetHostTimer(device(), &first));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_CL_SUCCESS(clGetHostTimer(device(), &second));
  EXPECT_GT(second, first);
  // Nanoseconds: 2 ms of sleep is at least 2,000,000.
  EXPECT_GE(second - first, 2'000'000u);
}

TEST(HostTimer, DeviceAndHostTimerAreConsistent) {
  if (platformInfo<cl_ulong>(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION) == 0)
    GTEST_SKIP() << "no host timer";
  cl_ulong device1 = 0, host1 = 0, device2 = 0, host2 = 0;
  ASSERT_CL_SUCCESS(clGetDeviceAndHostTimer(device(), &device1, &host1));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_CL_SUCCESS(clGetDeviceAndHostTimer(device(), &device2, &host2));
  EXPECT_GT(device2, device1);
  EXPECT_GT(host2, host1);
}

TEST(HostTimer, NullOutputsAreInvalidValue) {
  if (platformInfo<cl_ulong>(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION) == 0)
    GTEST_SKIP() << "no host timer";
  cl_ulong value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetHostTimer(device(), nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetDeviceAndHostTimer(device(), nullptr, &value));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetDeviceAndHostTimer(device(), &value, nullptr));
}

TEST(HostTimer, NullDeviceIsInvalidDevice) {
  cl_ulong value = 0;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, clGetHostTimer(nullptr, &value));
}
