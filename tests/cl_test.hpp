// The test suite's fixture: the platform, device, context and queue under test, RAII wrappers for
// OpenCL objects, program building with the build log on failure, info queries, and comparisons
// of results against host references.
//
// Everything goes through the standard OpenCL API and the ICD loader (libOpenCL.so), exactly as
// applications use it: the suite never links the implementation directly, so it runs unchanged
// against Kiln or any other platform the loader is pointed at (OCL_ICD_VENDORS).
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cltest {

// ---------------------------------------------------------------------------------------------
// Error codes

/// The name of an OpenCL error code ("CL_INVALID_VALUE"), or the number for unknown codes.
std::string errorName(cl_int code);

/// GoogleTest predicate formatter: compares two error codes and prints them by name.
::testing::AssertionResult checkClError(const char *expectedExpr, const char *actualExpr,
                                        cl_int expected, cl_int actual);

} // namespace cltest

#define EXPECT_CL_ERROR(expected, expr) EXPECT_PRED_FORMAT2(::cltest::checkClError, expected, expr)
#define ASSERT_CL_ERROR(expected, expr) ASSERT_PRED_FORMAT2(::cltest::checkClError, expected, expr)
#define EXPECT_CL_SUCCESS(expr) EXPECT_CL_ERROR(CL_SUCCESS, expr)
#define ASSERT_CL_SUCCESS(expr) ASSERT_CL_ERROR(CL_SUCCESS, expr)

namespace cltest {

// ---------------------------------------------------------------------------------------------
// RAII wrappers: every object a test creates is released when the test ends, pass or fail.

template <typename T> struct HandleTraits;
#define CLTEST_HANDLE_TRAITS(type, retainFn, releaseFn)                                            \
  template <> struct HandleTraits<type> {                                                          \
    static cl_int retain(type handle) { return retainFn(handle); }                                 \
    static cl_int release(type handle) { return releaseFn(handle); }                               \
  };
CLTEST_HANDLE_TRAITS(cl_context, clRetainContext, clReleaseContext)
CLTEST_HANDLE_TRAITS(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue)
CLTEST_HANDLE_TRAITS(cl_mem, clRetainMemObject, clReleaseMemObject)
CLTEST_HANDLE_TRAITS(cl_program, clRetainProgram, clReleaseProgram)
CLTEST_HANDLE_TRAITS(cl_kernel, clRetainKernel, clReleaseKernel)
CLTEST_HANDLE_TRAITS(cl_event, clRetainEvent, clReleaseEvent)
CLTEST_HANDLE_TRAITS(cl_sampler, clRetainSampler, clReleaseSampler)
CLTEST_HANDLE_TRAITS(cl_device_id, clRetainDevice, clReleaseDevice)
#undef CLTEST_HANDLE_TRAITS

/// Owns one reference to an OpenCL object. Converts implicitly to the raw handle, so it can be
/// passed to any API function.
template <typename T> class Handle {
public:
  Handle() = default;
  /// Takes over the reference the caller holds (e.g. from a clCreate* call).
  explicit Handle(T handle) : handle_(handle) {}
  Handle(const Handle &other) : handle_(other.handle_) {
    if (handle_ != nullptr)
      HandleTraits<T>::retain(handle_);
  }
  Handle(Handle &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Handle &operator=(Handle other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  ~Handle() { reset(); }

  /// Releases the held reference now (and takes `handle` instead).
  void reset(T handle = nullptr) {
    if (handle_ != nullptr) {
      EXPECT_CL_SUCCESS(HandleTraits<T>::release(handle_));
    }
    handle_ = handle;
  }
  /// Gives up ownership without releasing.
  T release() { return std::exchange(handle_, nullptr); }
  /// For API calls that return an object through a pointer (cl_event *event).
  T *out() {
    reset();
    return &handle_;
  }

  T get() const { return handle_; }
  operator T() const { return handle_; }
  /// A one-element list (wait lists, clWaitForEvents), without giving up ownership.
  const T *ptr() const { return &handle_; }

private:
  T handle_ = nullptr;
};

using Context = Handle<cl_context>;
using Queue = Handle<cl_command_queue>;
using Mem = Handle<cl_mem>;
using Program = Handle<cl_program>;
using Kernel = Handle<cl_kernel>;
using Event = Handle<cl_event>;

// ---------------------------------------------------------------------------------------------
// The platform and device under test

/// The first platform the ICD loader reports (with OCL_ICD_VENDORS set, the only one).
cl_platform_id platform();
/// The device the tests run on: the first device of that platform, or the first of the kind
/// KILN_TEST_DEVICE names (gpu or cpu).
cl_device_id device();

/// Whether the platform under test is PoCL (used to validate the tests' expectations).
bool isPocl();
/// Whether the platform under test is Kiln.
bool isKiln();
/// Whether the device under test is Kiln's CPU device (for tests of its code generator's own
/// behaviour: vectorization, streaming stores, worker threads).
bool isKilnCpuDevice();

/// Whether the implementation rejects handles that are not its live objects (foreign blocks,
/// objects of another type) instead of dereferencing them. The specification's CL_INVALID_*
/// errors for such handles are tested only where it does: PoCL 3.1 crashes on them.
bool validatesForeignHandles();

#define SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED()                                                    \
  do {                                                                                             \
    if (!::cltest::validatesForeignHandles())                                                      \
      GTEST_SKIP() << "this implementation does not validate foreign handles (it would crash)";    \
  } while (false)

/// Skips a test on PoCL where PoCL crashes or hangs (so the rest of a validation run against it
/// can go on). Only for that: where PoCL merely returns a different result, the test stays and
/// a comment names the specification rule it follows.
#define SKIP_ON_POCL(reason)                                                                       \
  do {                                                                                             \
    if (::cltest::isPocl())                                                                        \
      GTEST_SKIP() << "PoCL 3.1 " reason;                                                          \
  } while (false)

/// Storage for a handle the implementation never created: its first member is the vendor's
/// real dispatch pointer (so the ICD loader routes the call to the vendor, as it would for any
/// handle), the rest is zero. The vendor must answer with CL_INVALID_<object>.
struct ForeignObject {
  void *dispatch = nullptr;
  unsigned char body[256] = {};

  /// A handle of type `T` that borrows the dispatch pointer of `real` (any live object).
  template <typename T, typename U> T as(U real) {
    std::memcpy(&dispatch, static_cast<const void *>(real), sizeof dispatch);
    return reinterpret_cast<T>(this);
  }
};

// ---------------------------------------------------------------------------------------------
// Info queries

/// Queries a fixed-size value with `query(size, value, sizeRet)`, checking success and size.
template <typename T, typename Query> T queryValue(Query &&query) {
  T value{};
  size_t size = 0;
  EXPECT_CL_SUCCESS(query(sizeof value, &value, &size));
  EXPECT_EQ(sizeof value, size);
  return value;
}

/// Queries an array (or string) of `T`: asks for the size first, then the data.
template <typename T, typename Query> std::vector<T> queryArray(Query &&query) {
  size_t size = 0;
  EXPECT_CL_SUCCESS(query(0, nullptr, &size));
  EXPECT_EQ(0u, size % sizeof(T)) << "size " << size << " is not a multiple of the element";
  std::vector<T> values(size / sizeof(T));
  if (size > 0) {
    size_t again = 0;
    EXPECT_CL_SUCCESS(query(size, values.data(), &again));
    EXPECT_EQ(size, again);
  }
  return values;
}

/// Queries a NUL-terminated string, checking the terminator is where the size says.
template <typename Query> std::string queryString(Query &&query) {
  std::vector<char> text = queryArray<char>(query);
  if (text.empty()) {
    ADD_FAILURE() << "a string query returned size 0 (no NUL terminator)";
    return {};
  }
  EXPECT_EQ('\0', text.back()) << "string not NUL-terminated";
  EXPECT_EQ(text.size() - 1, std::strlen(text.data())) << "embedded NUL in string";
  return std::string(text.data());
}

template <typename T> T platformInfo(cl_platform_id platform, cl_platform_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetPlatformInfo(platform, param, s, v, r); });
}
std::string platformString(cl_platform_id platform, cl_platform_info param);

template <typename T> T deviceInfo(cl_device_id device, cl_device_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetDeviceInfo(device, param, s, v, r); });
}
template <typename T> std::vector<T> deviceArray(cl_device_id device, cl_device_info param) {
  return queryArray<T>(
      [&](size_t s, void *v, size_t *r) { return clGetDeviceInfo(device, param, s, v, r); });
}
std::string deviceString(cl_device_id device, cl_device_info param);

template <typename T> T contextInfo(cl_context context, cl_context_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetContextInfo(context, param, s, v, r); });
}
template <typename T> T queueInfo(cl_command_queue queue, cl_command_queue_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetCommandQueueInfo(queue, param, s, v, r); });
}
template <typename T> T memInfo(cl_mem mem, cl_mem_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetMemObjectInfo(mem, param, s, v, r); });
}
template <typename T> T eventInfo(cl_event event, cl_event_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetEventInfo(event, param, s, v, r); });
}
template <typename T> T programInfo(cl_program program, cl_program_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetProgramInfo(program, param, s, v, r); });
}
template <typename T>
T buildInfo(cl_program program, cl_device_id device, cl_program_build_info param) {
  return queryValue<T>([&](size_t s, void *v, size_t *r) {
    return clGetProgramBuildInfo(program, device, param, s, v, r);
  });
}
template <typename T> T kernelInfo(cl_kernel kernel, cl_kernel_info param) {
  return queryValue<T>(
      [&](size_t s, void *v, size_t *r) { return clGetKernelInfo(kernel, param, s, v, r); });
}
template <typename T>
T workGroupInfo(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param) {
  return queryValue<T>([&](size_t s, void *v, size_t *r) {
    return clGetKernelWorkGroupInfo(kernel, device, param, s, v, r);
  });
}

/// The reference count of any object (through its CL_*_REFERENCE_COUNT query).
cl_uint refCount(cl_context context);
cl_uint refCount(cl_command_queue queue);
cl_uint refCount(cl_mem mem);
cl_uint refCount(cl_program program);
cl_uint refCount(cl_kernel kernel);
cl_uint refCount(cl_event event);

/// CL_EVENT_COMMAND_EXECUTION_STATUS.
cl_int eventStatus(cl_event event);

/// Splits `text` at every `separator`, dropping empty pieces.
std::vector<std::string> split(const std::string &text, char separator);

/// Whether the space-separated extension string of the device names `extension`.
bool hasExtension(cl_device_id device, const std::string &extension);

/// Whether the device's CL_DEVICE_OPENCL_C_FEATURES list `feature` (`__opencl_c_pipes`, ...).
bool hasOpenClCFeature(cl_device_id device, const std::string &feature);

/// The OpenCL C versions of the device (CL_DEVICE_OPENCL_C_ALL_VERSIONS) include major.minor.
bool supportsOpenCLC(cl_device_id device, cl_uint major, cl_uint minor);

/// The device's CL_DEVICE_VERSION, as a cl_version.
cl_version deviceVersion(cl_device_id device);

/// CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE of `kernel` for a one-dimensional local size.
size_t subGroupWidth(cl_kernel kernel, cl_device_id device, size_t local);

// ---------------------------------------------------------------------------------------------
// Programs

/// CL_PROGRAM_BUILD_LOG for `device`.
std::string buildLog(cl_program program, cl_device_id device);

/// Creates a program from `source` and builds it for `device`. On failure, records a test
/// failure that shows the error and the build log, and returns a null program.
Program buildProgram(cl_context context, cl_device_id device, const std::string &source,
                     const std::string &options = "");

/// The result of a build that is expected to fail: the error code and the log.
struct BuildResult {
  cl_int error = CL_SUCCESS;
  std::string log;
  Program program;
};
BuildResult tryBuild(cl_context context, cl_device_id device, const std::string &source,
                     const std::string &options = "");

/// clCreateKernel, recording a failure (and returning null) when it fails.
Kernel createKernel(cl_program program, const char *name);

/// Sets kernel arguments in order: cl_mem handles (Mem or raw), scalars, structs, or
/// LocalSize{bytes} for __local arguments.
struct LocalSize {
  size_t bytes;
};
inline cl_int setArg(cl_kernel kernel, cl_uint index, const LocalSize &local) {
  return clSetKernelArg(kernel, index, local.bytes, nullptr);
}
template <typename T> cl_int setArg(cl_kernel kernel, cl_uint index, const Handle<T> &handle) {
  T raw = handle.get();
  return clSetKernelArg(kernel, index, sizeof raw, &raw);
}
template <typename T> cl_int setArg(cl_kernel kernel, cl_uint index, const T &value) {
  static_assert(std::is_trivially_copyable_v<T>);
  return clSetKernelArg(kernel, index, sizeof value, &value);
}
template <typename... Args>
::testing::AssertionResult setArgs(cl_kernel kernel, const Args &...args) {
  cl_uint index = 0;
  cl_int error = CL_SUCCESS;
  cl_uint failedAt = 0;
  auto one = [&](const auto &arg) {
    if (error == CL_SUCCESS) {
      error = setArg(kernel, index, arg);
      failedAt = index;
    }
    ++index;
  };
  (one(args), ...);
  if (error == CL_SUCCESS)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "clSetKernelArg(" << failedAt << ") returned " << errorName(error);
}

// ---------------------------------------------------------------------------------------------
// Comparing results against host references

/// Equal element by element; reports the count and the first mismatches with their indices.
template <typename T>
::testing::AssertionResult equalArrays(const std::vector<T> &expected,
                                       const std::vector<T> &actual) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure()
           << "sizes differ: expected " << expected.size() << ", got " << actual.size();
  size_t mismatches = 0;
  std::ostringstream details;
  for (size_t index = 0; index < expected.size(); ++index) {
    if (std::memcmp(&expected[index], &actual[index], sizeof(T)) == 0)
      continue;
    if (mismatches < 8) {
      details << "\n  [" << index << "] expected ";
      if constexpr (std::is_arithmetic_v<T>)
        details << +expected[index] << ", got " << +actual[index];
      else
        details << "(bytes differ)";
    }
    ++mismatches;
  }
  if (mismatches == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << mismatches << " of " << expected.size() << " elements differ:" << details.str();
}

/// Floating-point results within an absolute or a relative tolerance (NaN matches NaN).
template <typename T>
::testing::AssertionResult nearArrays(const std::vector<T> &expected, const std::vector<T> &actual,
                                      double absolute, double relative = 0) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "sizes differ";
  size_t mismatches = 0;
  std::ostringstream details;
  for (size_t index = 0; index < expected.size(); ++index) {
    double e = expected[index], a = actual[index];
    bool ok = (std::isnan(e) && std::isnan(a)) || e == a ||
              std::fabs(e - a) <= std::max(absolute, relative * std::fabs(e));
    if (ok)
      continue;
    if (mismatches < 8)
      details << "\n  [" << index << "] expected " << e << ", got " << a;
    ++mismatches;
  }
  if (mismatches == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << mismatches << " of " << expected.size() << " elements differ:" << details.str();
}

/// Distance in units in the last place between two finite floats.
int64_t ulpDistance(float a, float b);
int64_t ulpDistance(double a, double b);

/// A deterministic pseudo-random sequence (the same on every run and platform).
class Random {
public:
  explicit Random(uint64_t seed = 0x2545F4914F6CDD1Dull) : state_(seed) {}
  uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  /// Uniform in [low, high].
  float uniform(float low, float high) {
    return low + (high - low) * static_cast<float>(next() >> 40) / static_cast<float>(1 << 24);
  }
  template <typename T> std::vector<T> values(size_t count) {
    std::vector<T> out(count);
    for (T &value : out) {
      if constexpr (std::is_floating_point_v<T>)
        value = static_cast<T>(uniform(-100.0f, 100.0f));
      else
        value = static_cast<T>(next());
    }
    return out;
  }

private:
  uint64_t state_;
};

/// Polls `condition` until it holds or `timeout` passes; returns its final value. For
/// callbacks and destructions the implementation may perform on its own threads.
bool eventually(const std::function<bool()> &condition,
                std::chrono::milliseconds timeout = std::chrono::seconds(5));

/// Waits a short while and returns whether `condition` still does NOT hold (for "must not
/// happen yet" checks).
bool staysFalse(const std::function<bool()> &condition,
                std::chrono::milliseconds duration = std::chrono::milliseconds(100));

/// Sets (or, with no value, unsets) an environment variable for the builds in one scope: Kiln
/// reads its switches (the vectorizer's, the on-disk cache's) at each clBuildProgram.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      previous_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnvironment() {
    if (previous_)
      setenv(name_, previous_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  const char *name_;
  std::optional<std::string> previous_;
};

/// A user event that gates commands. If the test has not set its status by the time it goes out
/// of scope (a failed assertion returned early), it is set to an error so that no command stays
/// blocked while the fixture releases the queue and context.
class Gate {
public:
  explicit Gate(cl_context context);
  ~Gate();
  Gate(const Gate &) = delete;
  Gate &operator=(const Gate &) = delete;

  /// clSetUserEventStatus(CL_COMPLETE).
  cl_int open();
  /// clSetUserEventStatus(status), a negative error.
  cl_int fail(cl_int status = -1);

  cl_event get() const { return event_; }
  operator cl_event() const { return event_; }
  /// For wait lists: a pointer to the one event.
  const cl_event *list() const { return &event_; }

private:
  cl_event event_ = nullptr;
  bool set_ = false;
};

// ---------------------------------------------------------------------------------------------
// The fixture

/// A context with the device under test and an in-order queue on it.
class ClTest : public ::testing::Test {
protected:
  void SetUp() override;

  /// clCreateBuffer, asserting success through the returned handle being non-null.
  Mem createBuffer(cl_mem_flags flags, size_t size, void *hostPtr = nullptr);
  /// A READ_WRITE buffer holding `data`.
  template <typename T> Mem bufferWith(const std::vector<T> &data, cl_mem_flags flags = 0) {
    return createBuffer(flags | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(T),
                        const_cast<T *>(data.data()));
  }
  /// A blocking read of `count` elements starting `offset` elements in.
  template <typename T> std::vector<T> read(cl_mem buffer, size_t count, size_t offset = 0) {
    std::vector<T> out(count);
    EXPECT_CL_SUCCESS(clEnqueueReadBuffer(queue_, buffer, CL_TRUE, offset * sizeof(T),
                                          count * sizeof(T), out.data(), 0, nullptr, nullptr));
    return out;
  }
  template <typename T> void write(cl_mem buffer, const std::vector<T> &data, size_t offset = 0) {
    EXPECT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, offset * sizeof(T),
                                           data.size() * sizeof(T), data.data(), 0, nullptr,
                                           nullptr));
  }

  /// Builds a program for the device under test (see buildProgram()).
  Program build(const std::string &source, const std::string &options = "") {
    return buildProgram(context_, device_, source, options);
  }
  /// Builds `source` and creates its kernel `name`; null (with a recorded failure) otherwise.
  Kernel buildKernel(const std::string &source, const char *name, const std::string &options = "");

  /// buildKernel with KILN_VECTORIZE_REPORT on: Kiln's CPU device then prints, for each
  /// work-group function it compiles from the kernel, how it compiled it.
  Kernel buildReportingKernel(const std::string &source, const char *name,
                              const std::string &options = "") {
    ScopedEnvironment report("KILN_VECTORIZE_REPORT", "1");
    return buildKernel(source, name, options);
  }
  /// Runs `kernel` in one dimension, as run() does, and returns what was printed on stderr
  /// meanwhile (a reporting kernel's report).
  std::string runCapturingStderr(cl_kernel kernel, size_t global, size_t local = 0,
                                 size_t offset = 0) {
    testing::internal::CaptureStderr();
    EXPECT_TRUE(run(kernel, 1, &global, local != 0 ? &local : nullptr, &offset));
    return testing::internal::GetCapturedStderr();
  }

  /// Enqueues `kernel` over an NDRange and waits for the queue to finish.
  ::testing::AssertionResult run(cl_kernel kernel, cl_uint dims, const size_t *global,
                                 const size_t *local = nullptr, const size_t *offset = nullptr);
  ::testing::AssertionResult run1D(cl_kernel kernel, size_t global, size_t local = 0) {
    return run(kernel, 1, &global, local != 0 ? &local : nullptr);
  }

  /// A user event of the fixture's context.
  Event userEvent();

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  Context context_;
  Queue queue_;
};

} // namespace cltest
