#include "cl_test.hpp"

#include <bit>
#include <cstdlib>
#include <thread>

namespace cltest {
namespace {

// Kiln's on-disk program cache stays off in the suite unless the environment asks for it: the
// tests never write to the user's cache, and each of their builds really compiles. The cache's
// own tests turn it on in folders of their own.
const bool cacheOffUnlessAsked = setenv("KILN_CACHE", "0", /*overwrite=*/0) == 0;

} // namespace

std::string errorName(cl_int code) {
  switch (code) {
#define CASE(name)                                                                                 \
  case name:                                                                                       \
    return #name;
    CASE(CL_SUCCESS)
    CASE(CL_DEVICE_NOT_FOUND)
    CASE(CL_DEVICE_NOT_AVAILABLE)
    CASE(CL_COMPILER_NOT_AVAILABLE)
    CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CASE(CL_OUT_OF_RESOURCES)
    CASE(CL_OUT_OF_HOST_MEMORY)
    CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
    CASE(CL_MEM_COPY_OVERLAP)
    CASE(CL_IMAGE_FORMAT_MISMATCH)
    CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CASE(CL_BUILD_PROGRAM_FAILURE)
    CASE(CL_MAP_FAILURE)
    CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CASE(CL_COMPILE_PROGRAM_FAILURE)
    CASE(CL_LINKER_NOT_AVAILABLE)
    CASE(CL_LINK_PROGRAM_FAILURE)
    CASE(CL_DEVICE_PARTITION_FAILED)
    CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CASE(CL_INVALID_VALUE)
    CASE(CL_INVALID_DEVICE_TYPE)
    CASE(CL_INVALID_PLATFORM)
    CASE(CL_INVALID_DEVICE)
    CASE(CL_INVALID_CONTEXT)
    CASE(CL_INVALID_QUEUE_PROPERTIES)
    CASE(CL_INVALID_COMMAND_QUEUE)
    CASE(CL_INVALID_HOST_PTR)
    CASE(CL_INVALID_MEM_OBJECT)
    CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CASE(CL_INVALID_IMAGE_SIZE)
    CASE(CL_INVALID_SAMPLER)
    CASE(CL_INVALID_BINARY)
    CASE(CL_INVALID_BUILD_OPTIONS)
    CASE(CL_INVALID_PROGRAM)
    CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    CASE(CL_INVALID_KERNEL_NAME)
    CASE(CL_INVALID_KERNEL_DEFINITION)
    CASE(CL_INVALID_KERNEL)
    CASE(CL_INVALID_ARG_INDEX)
    CASE(CL_INVALID_ARG_VALUE)
    CASE(CL_INVALID_ARG_SIZE)
    CASE(CL_INVALID_KERNEL_ARGS)
    CASE(CL_INVALID_WORK_DIMENSION)
    CASE(CL_INVALID_WORK_GROUP_SIZE)
    CASE(CL_INVALID_WORK_ITEM_SIZE)
    CASE(CL_INVALID_GLOBAL_OFFSET)
    CASE(CL_INVALID_EVENT_WAIT_LIST)
    CASE(CL_INVALID_EVENT)
    CASE(CL_INVALID_OPERATION)
    CASE(CL_INVALID_GL_OBJECT)
    CASE(CL_INVALID_BUFFER_SIZE)
    CASE(CL_INVALID_MIP_LEVEL)
    CASE(CL_INVALID_GLOBAL_WORK_SIZE)
    CASE(CL_INVALID_PROPERTY)
    CASE(CL_INVALID_IMAGE_DESCRIPTOR)
    CASE(CL_INVALID_COMPILER_OPTIONS)
    CASE(CL_INVALID_LINKER_OPTIONS)
    CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
    CASE(CL_INVALID_PIPE_SIZE)
    CASE(CL_INVALID_DEVICE_QUEUE)
    CASE(CL_INVALID_SPEC_ID)
    CASE(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef CASE
  default:
    return "error " + std::to_string(code);
  }
}

::testing::AssertionResult checkClError(const char *expectedExpr, const char *actualExpr,
                                        cl_int expected, cl_int actual) {
  if (expected == actual)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << actualExpr << "\n  returned " << errorName(actual) << " (" << actual << ")"
         << "\n  expected " << errorName(expected) << " (" << expected << ")";
}

// ---------------------------------------------------------------------------------------------

cl_platform_id platform() {
  static cl_platform_id first = [] {
    cl_uint count = 0;
    cl_platform_id platforms[16] = {};
    cl_int error = clGetPlatformIDs(16, platforms, &count);
    if (error != CL_SUCCESS || count == 0) {
      std::fprintf(stderr, "kiln_tests: no OpenCL platform (clGetPlatformIDs: %s)\n",
                   errorName(error).c_str());
      std::abort();
    }
    return platforms[0];
  }();
  return first;
}

/// The kind of device the suite runs on: KILN_TEST_DEVICE=gpu or cpu, else the first device.
cl_device_type testedDeviceType() {
  const char *kind = std::getenv("KILN_TEST_DEVICE");
  if (kind != nullptr && std::string(kind) == "gpu")
    return CL_DEVICE_TYPE_GPU;
  if (kind != nullptr && std::string(kind) == "cpu")
    return CL_DEVICE_TYPE_CPU;
  return CL_DEVICE_TYPE_ALL;
}

cl_device_id device() {
  static cl_device_id first = [] {
    cl_device_id found = nullptr;
    cl_int error = clGetDeviceIDs(platform(), testedDeviceType(), 1, &found, nullptr);
    if (error != CL_SUCCESS || found == nullptr) {
      std::fprintf(stderr, "kiln_tests: no OpenCL device (clGetDeviceIDs: %s)\n",
                   errorName(error).c_str());
      std::abort();
    }
    return found;
  }();
  return first;
}

bool isPocl() {
  static bool pocl = [] {
    char name[256] = {};
    clGetPlatformInfo(platform(), CL_PLATFORM_NAME, sizeof name, name, nullptr);
    return std::string(name).find("Portable Computing Language") != std::string::npos;
  }();
  return pocl;
}

bool isKiln() {
  static bool kiln = [] {
    char name[256] = {};
    clGetPlatformInfo(platform(), CL_PLATFORM_NAME, sizeof name, name, nullptr);
    return std::string(name) == "Kiln";
  }();
  return kiln;
}

bool isKilnCpuDevice() {
  cl_device_type type = 0;
  clGetDeviceInfo(device(), CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  return isKiln() && (type & CL_DEVICE_TYPE_CPU) != 0;
}

bool validatesForeignHandles() {
  return !isPocl();
}

std::string platformString(cl_platform_id platform, cl_platform_info param) {
  return queryString(
      [&](size_t s, void *v, size_t *r) { return clGetPlatformInfo(platform, param, s, v, r); });
}

std::string deviceString(cl_device_id device, cl_device_info param) {
  return queryString(
      [&](size_t s, void *v, size_t *r) { return clGetDeviceInfo(device, param, s, v, r); });
}

cl_uint refCount(cl_context context) {
  return contextInfo<cl_uint>(context, CL_CONTEXT_REFERENCE_COUNT);
}
cl_uint refCount(cl_command_queue queue) {
  return queueInfo<cl_uint>(queue, CL_QUEUE_REFERENCE_COUNT);
}
cl_uint refCount(cl_mem mem) {
  return memInfo<cl_uint>(mem, CL_MEM_REFERENCE_COUNT);
}
cl_uint refCount(cl_program program) {
  return programInfo<cl_uint>(program, CL_PROGRAM_REFERENCE_COUNT);
}
cl_uint refCount(cl_kernel kernel) {
  return kernelInfo<cl_uint>(kernel, CL_KERNEL_REFERENCE_COUNT);
}
cl_uint refCount(cl_event event) {
  return eventInfo<cl_uint>(event, CL_EVENT_REFERENCE_COUNT);
}

cl_int eventStatus(cl_event event) {
  return eventInfo<cl_int>(event, CL_EVENT_COMMAND_EXECUTION_STATUS);
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> pieces;
  std::string current;
  for (char c : text) {
    if (c == separator) {
      if (!current.empty())
        pieces.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty())
    pieces.push_back(current);
  return pieces;
}

bool hasExtension(cl_device_id device, const std::string &extension) {
  std::vector<std::string> names = split(deviceString(device, CL_DEVICE_EXTENSIONS), ' ');
  return std::find(names.begin(), names.end(), extension) != names.end();
}

bool hasOpenClCFeature(cl_device_id device, const std::string &feature) {
  std::vector<cl_name_version> features =
      deviceArray<cl_name_version>(device, CL_DEVICE_OPENCL_C_FEATURES);
  return std::any_of(features.begin(), features.end(),
                     [&](const cl_name_version &listed) { return feature == listed.name; });
}

size_t subGroupWidth(cl_kernel kernel, cl_device_id device, size_t local) {
  size_t width = 0;
  EXPECT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device,
                                            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                            &local, sizeof width, &width, nullptr));
  return width;
}

bool supportsOpenCLC(cl_device_id device, cl_uint major, cl_uint minor) {
  for (const cl_name_version &entry :
       deviceArray<cl_name_version>(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS))
    if (CL_VERSION_MAJOR(entry.version) == major && CL_VERSION_MINOR(entry.version) == minor)
      return true;
  return false;
}

cl_version deviceVersion(cl_device_id device) {
  return deviceInfo<cl_version>(device, CL_DEVICE_NUMERIC_VERSION);
}

// ---------------------------------------------------------------------------------------------

std::string buildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0)
    return {};
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  return log;
}

BuildResult tryBuild(cl_context context, cl_device_id device, const std::string &source,
                     const std::string &options) {
  BuildResult result;
  const char *text = source.c_str();
  cl_int error = CL_SUCCESS;
  result.program = Program(clCreateProgramWithSource(context, 1, &text, nullptr, &error));
  if (error != CL_SUCCESS) {
    result.error = error;
    return result;
  }
  result.error = clBuildProgram(result.program, 1, &device, options.c_str(), nullptr, nullptr);
  result.log = buildLog(result.program, device);
  return result;
}

Program buildProgram(cl_context context, cl_device_id device, const std::string &source,
                     const std::string &options) {
  BuildResult result = tryBuild(context, device, source, options);
  if (result.error != CL_SUCCESS) {
    ADD_FAILURE() << "building the program failed with " << errorName(result.error)
                  << (options.empty() ? "" : " (options \"" + options + "\")")
                  << "\n--- build log ---\n"
                  << result.log << "\n--- source ---\n"
                  << source;
    return Program();
  }
  return std::move(result.program);
}

Kernel createKernel(cl_program program, const char *name) {
  if (program == nullptr)
    return Kernel();
  cl_int error = CL_SUCCESS;
  Kernel kernel(clCreateKernel(program, name, &error));
  if (error != CL_SUCCESS)
    ADD_FAILURE() << "clCreateKernel(\"" << name << "\") returned " << errorName(error);
  return kernel;
}

// ---------------------------------------------------------------------------------------------

int64_t ulpDistance(float a, float b) {
  auto ordered = [](float value) {
    int32_t bits = std::bit_cast<int32_t>(value);
    return bits < 0 ? int64_t{INT32_MIN} - bits : int64_t{bits};
  };
  return std::llabs(ordered(a) - ordered(b));
}

int64_t ulpDistance(double a, double b) {
  auto ordered = [](double value) {
    int64_t bits = std::bit_cast<int64_t>(value);
    return bits < 0 ? INT64_MIN - bits : bits;
  };
  int64_t x = ordered(a), y = ordered(b);
  return x > y ? x - y : y - x;
}

bool eventually(const std::function<bool()> &condition, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline)
      return condition();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool staysFalse(const std::function<bool()> &condition, std::chrono::milliseconds duration) {
  auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition())
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return !condition();
}

Gate::Gate(cl_context context) {
  cl_int error = CL_SUCCESS;
  event_ = clCreateUserEvent(context, &error);
  EXPECT_CL_SUCCESS(error);
}

Gate::~Gate() {
  if (event_ == nullptr)
    return;
  if (!set_)
    clSetUserEventStatus(event_, -1);
  clReleaseEvent(event_);
}

cl_int Gate::open() {
  set_ = true;
  return clSetUserEventStatus(event_, CL_COMPLETE);
}

cl_int Gate::fail(cl_int status) {
  set_ = true;
  return clSetUserEventStatus(event_, status);
}

// ---------------------------------------------------------------------------------------------

void ClTest::SetUp() {
  platform_ = platform();
  device_ = device();
  cl_int error = CL_SUCCESS;
  context_ = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  queue_ = Queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
}

Mem ClTest::createBuffer(cl_mem_flags flags, size_t size, void *hostPtr) {
  cl_int error = CL_SUCCESS;
  Mem buffer(clCreateBuffer(context_, flags, size, hostPtr, &error));
  EXPECT_CL_SUCCESS(error) << "clCreateBuffer(flags " << flags << ", size " << size << ")";
  return buffer;
}

Kernel ClTest::buildKernel(const std::string &source, const char *name,
                           const std::string &options) {
  Program program = build(source, options);
  if (program == nullptr)
    return Kernel();
  return createKernel(program, name);
}

::testing::AssertionResult ClTest::run(cl_kernel kernel, cl_uint dims, const size_t *global,
                                       const size_t *local, const size_t *offset) {
  if (kernel == nullptr)
    return ::testing::AssertionFailure() << "no kernel";
  cl_int error =
      clEnqueueNDRangeKernel(queue_, kernel, dims, offset, global, local, 0, nullptr, nullptr);
  if (error != CL_SUCCESS)
    return ::testing::AssertionFailure() << "clEnqueueNDRangeKernel returned " << errorName(error);
  error = clFinish(queue_);
  if (error != CL_SUCCESS)
    return ::testing::AssertionFailure() << "clFinish returned " << errorName(error);
  return ::testing::AssertionSuccess();
}

Event ClTest::userEvent() {
  cl_int error = CL_SUCCESS;
  Event event(clCreateUserEvent(context_, &error));
  EXPECT_CL_SUCCESS(error);
  return event;
}

} // namespace cltest
