// Contexts: clCreateContext, clCreateContextFromType, properties, queries, reference counts,
// the error callback and destructor callbacks.
#include "cl_test.hpp"

#include <atomic>
#include <mutex>

using namespace cltest;

namespace {

class ContextTest : public ::testing::Test {
protected:
  cl_platform_id platform_ = platform();
  cl_device_id device_ = device();

  Context create(const cl_context_properties *properties = nullptr, cl_int *errorOut = nullptr) {
    cl_int error = CL_SUCCESS;
    Context context(clCreateContext(properties, 1, &device_, nullptr, nullptr, &error));
    if (errorOut != nullptr)
      *errorOut = error;
    else
      EXPECT_CL_SUCCESS(error);
    return context;
  }
};

/// Records the order in which destructor callbacks run.
struct CallbackLog {
  std::mutex mutex;
  std::vector<int> order;
  void add(int id) {
    std::lock_guard lock(mutex);
    order.push_back(id);
  }
  size_t size() {
    std::lock_guard lock(mutex);
    return order.size();
  }
};

struct LoggedCallback {
  CallbackLog *log;
  int id;
  cl_context expected;
};

void CL_CALLBACK contextDestroyed(cl_context context, void *data) {
  auto *callback = static_cast<LoggedCallback *>(data);
  EXPECT_EQ(callback->expected, context);
  callback->log->add(callback->id);
}

void CL_CALLBACK ignoreErrors(const char *, const void *, size_t, void *) {}

} // namespace

TEST_F(ContextTest, CreateWithOneDeviceReportsItsDevicesAndCount) {
  Context context = create();
  ASSERT_NE(nullptr, context.get());
  EXPECT_EQ(1u, contextInfo<cl_uint>(context, CL_CONTEXT_NUM_DEVICES));
  EXPECT_EQ(device_, contextInfo<cl_device_id>(context, CL_CONTEXT_DEVICES));
  // Reference counts are "immediately stale" and may include the implementation's own
  // references: the suite checks only that they are positive and how retain/release move them.
  EXPECT_GE(refCount(context.get()), 1u);
}

TEST_F(ContextTest, NullPropertiesAreReportedWithSizeZero) {
  // "If the properties argument ... was NULL, the implementation must return
  // param_value_size_ret equal to 0".
  Context context = create();
  size_t size = 99;
  ASSERT_CL_SUCCESS(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
}

TEST_F(ContextTest, PropertiesAreReportedAsGiven) {
  // "... must return the values specified in the properties argument in the same order and
  // without including additional properties."
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  Context context = create(properties);
  auto reported = queryArray<cl_context_properties>([&](size_t s, void *v, size_t *r) {
    return clGetContextInfo(context, CL_CONTEXT_PROPERTIES, s, v, r);
  });
  EXPECT_EQ(std::vector<cl_context_properties>(std::begin(properties), std::end(properties)),
            reported);
}

TEST_F(ContextTest, InteropUserSyncPropertyIsAccepted) {
  cl_context_properties properties[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
  Context context = create(properties);
  EXPECT_NE(nullptr, context.get());
}

TEST_F(ContextTest, InvalidPropertyValueIsInvalidProperty) {
  // "CL_INVALID_PROPERTY if ... the value specified for a supported property name is not valid"
  // (a cl_bool is CL_TRUE or CL_FALSE). PoCL 3.1 accepts it.
  cl_context_properties properties[] = {CL_CONTEXT_INTEROP_USER_SYNC, 7, 0};
  cl_int error = CL_SUCCESS;
  Context context = create(properties, &error);
  EXPECT_EQ(nullptr, context.get());
  EXPECT_CL_ERROR(CL_INVALID_PROPERTY, error);
}

TEST_F(ContextTest, DuplicateDevicesAreIgnored) {
  // "Duplicate devices specified in devices are ignored."
  cl_device_id devices[] = {device_, device_, device_};
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 3, devices, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(1u, contextInfo<cl_uint>(context, CL_CONTEXT_NUM_DEVICES));
  size_t size = 0;
  ASSERT_CL_SUCCESS(clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &size));
  EXPECT_EQ(sizeof(cl_device_id), size);
}

TEST_F(ContextTest, NullDevicesIsInvalidValue) {
  cl_int error = CL_SUCCESS;
  // The loader needs a platform to route a call without devices: name it in the properties.
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  EXPECT_EQ(nullptr, clCreateContext(properties, 1, nullptr, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(ContextTest, ZeroDevicesIsInvalidValue) {
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 0, &device_, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(ContextTest, UserDataWithoutCallbackIsInvalidValue) {
  int data = 0;
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 1, &device_, nullptr, &data, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr,
            clCreateContextFromType(nullptr, CL_DEVICE_TYPE_DEFAULT, nullptr, &data, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(ContextTest, NullDeviceInTheListIsInvalidDevice) {
  cl_device_id devices[] = {device_, nullptr};
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 2, devices, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, error);
}

TEST_F(ContextTest, ForeignDeviceIsInvalidDevice) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_device_id devices[] = {device_, foreign.as<cl_device_id>(device_)};
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 2, devices, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, error);
}

TEST_F(ContextTest, UnknownPropertyIsInvalidProperty) {
  cl_context_properties properties[] = {0x7FFF, 1, 0};
  cl_int error = CL_SUCCESS;
  Context context = create(properties, &error);
  EXPECT_EQ(nullptr, context.get());
  EXPECT_CL_ERROR(CL_INVALID_PROPERTY, error);
}

TEST_F(ContextTest, RepeatedPropertyIsInvalidProperty) {
  // "CL_INVALID_PROPERTY if ... the same property name is specified more than once."
  auto value = reinterpret_cast<cl_context_properties>(platform_);
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, value, CL_CONTEXT_PLATFORM, value, 0};
  cl_int error = CL_SUCCESS;
  Context context = create(properties, &error);
  EXPECT_EQ(nullptr, context.get());
  EXPECT_CL_ERROR(CL_INVALID_PROPERTY, error);
}

TEST_F(ContextTest, ForeignPlatformPropertyIsInvalidPlatform) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM,
      reinterpret_cast<cl_context_properties>(foreign.as<cl_platform_id>(platform_)), 0};
  cl_int error = CL_SUCCESS;
  Context context = create(properties, &error);
  EXPECT_EQ(nullptr, context.get());
  EXPECT_CL_ERROR(CL_INVALID_PLATFORM, error);
}

TEST_F(ContextTest, ErrorCodeMayBeOmitted) {
  Context context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr));
  EXPECT_NE(nullptr, context.get());
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 0, &device_, nullptr, nullptr, nullptr));
}

// ---------------------------------------------------------------------------------------------

TEST_F(ContextTest, FromTypeDefaultHasOneDevice) {
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  cl_int error = CL_SUCCESS;
  Context context(
      clCreateContextFromType(properties, CL_DEVICE_TYPE_DEFAULT, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(1u, contextInfo<cl_uint>(context, CL_CONTEXT_NUM_DEVICES));
}

TEST_F(ContextTest, FromTypeAllHasEveryNonCustomDevice) {
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  cl_uint expected = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform_, CL_DEVICE_TYPE_ALL, 0, nullptr, &expected));
  cl_int error = CL_SUCCESS;
  Context context(
      clCreateContextFromType(properties, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(expected, contextInfo<cl_uint>(context, CL_CONTEXT_NUM_DEVICES));
}

TEST_F(ContextTest, FromTypeOfTheDeviceTypeContainsTheDevice) {
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  cl_device_type type =
      deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) & ~CL_DEVICE_TYPE_DEFAULT;
  cl_int error = CL_SUCCESS;
  Context context(clCreateContextFromType(properties, type, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  auto devices = queryArray<cl_device_id>([&](size_t s, void *v, size_t *r) {
    return clGetContextInfo(context, CL_CONTEXT_DEVICES, s, v, r);
  });
  EXPECT_NE(devices.end(), std::find(devices.begin(), devices.end(), device_));
}

// "CL_INVALID_DEVICE_TYPE if device_type is not a valid value" (PoCL 3.1 creates a context).
TEST_F(ContextTest, FromTypeInvalidTypeIsInvalidDeviceType) {
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr,
            clCreateContextFromType(properties, cl_device_type{1} << 40, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_TYPE, error);
}

// "CL_DEVICE_NOT_FOUND if no devices that match device_type and property values specified in
// properties are currently available" (PoCL 3.1 creates a context with its CPU device).
TEST_F(ContextTest, FromTypeWithoutMatchingDevicesIsDeviceNotFound) {
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  for (cl_device_type type : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR}) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform_, type, 0, nullptr, &count) != CL_DEVICE_NOT_FOUND)
      continue;
    cl_int error = CL_SUCCESS;
    EXPECT_EQ(nullptr, clCreateContextFromType(properties, type, nullptr, nullptr, &error));
    EXPECT_CL_ERROR(CL_DEVICE_NOT_FOUND, error);
  }
}

// ---------------------------------------------------------------------------------------------

TEST_F(ContextTest, RetainAndReleaseMoveTheReferenceCount) {
  Context context = create();
  cl_uint initial = refCount(context.get());
  ASSERT_CL_SUCCESS(clRetainContext(context));
  EXPECT_EQ(initial + 1, refCount(context.get()));
  ASSERT_CL_SUCCESS(clRetainContext(context));
  EXPECT_EQ(initial + 2, refCount(context.get()));
  ASSERT_CL_SUCCESS(clReleaseContext(context));
  ASSERT_CL_SUCCESS(clReleaseContext(context));
  EXPECT_EQ(initial, refCount(context.get()));
}

TEST_F(ContextTest, NullContextIsInvalidContext) {
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clRetainContext(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clReleaseContext(nullptr));
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clGetContextInfo(nullptr, CL_CONTEXT_NUM_DEVICES, sizeof value, &value, nullptr));
}

TEST_F(ContextTest, ForeignContextIsInvalidContext) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  Context context = create();
  ForeignObject foreign;
  cl_context handle = foreign.as<cl_context>(context.get());
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clRetainContext(handle));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clReleaseContext(handle));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clGetContextInfo(handle, CL_CONTEXT_NUM_DEVICES, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clSetContextDestructorCallback(handle, contextDestroyed, nullptr));
}

TEST_F(ContextTest, InfoErrors) {
  Context context = create();
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetContextInfo(context, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES,
                                                     sizeof value - 1, &value, nullptr));
  cl_device_id device = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetContextInfo(context, CL_CONTEXT_DEVICES, 1, &device, nullptr));
  for (cl_context_info param : {CL_CONTEXT_REFERENCE_COUNT, CL_CONTEXT_NUM_DEVICES,
                                CL_CONTEXT_DEVICES, CL_CONTEXT_PROPERTIES}) {
    size_t size = 0;
    EXPECT_CL_SUCCESS(clGetContextInfo(context, param, 0, nullptr, &size)) << param;
  }
}

// ---------------------------------------------------------------------------------------------
// Callbacks

TEST_F(ContextTest, ErrorCallbackIsAcceptedAndSilentForSuccessfulCalls) {
  std::atomic<int> calls{0};
  auto notify = [](const char *, const void *, size_t, void *data) {
    static_cast<std::atomic<int> *>(data)->fetch_add(1);
  };
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &device_, notify, &calls, &error));
  ASSERT_CL_SUCCESS(error);
  Queue queue(clCreateCommandQueueWithProperties(context, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  int data[4] = {1, 2, 3, 4};
  Mem buffer(clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof data, data, &error));
  ASSERT_CL_SUCCESS(error);
  int out[4] = {};
  ASSERT_CL_SUCCESS(
      clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof out, out, 0, nullptr, nullptr));
  EXPECT_EQ(0, std::memcmp(data, out, sizeof data));
  EXPECT_EQ(0, calls.load());
}

TEST_F(ContextTest, ErrorCallbackWithFromType) {
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                        reinterpret_cast<cl_context_properties>(platform_), 0};
  cl_int error = CL_SUCCESS;
  int data = 0;
  Context context(
      clCreateContextFromType(properties, CL_DEVICE_TYPE_DEFAULT, ignoreErrors, &data, &error));
  EXPECT_CL_SUCCESS(error);
}

TEST_F(ContextTest, DestructorCallbacksRunInReverseOrderOnTheLastRelease) {
  CallbackLog log;
  cl_context context = create().release();
  LoggedCallback callbacks[3] = {{&log, 1, context}, {&log, 2, context}, {&log, 3, context}};
  for (LoggedCallback &callback : callbacks)
    ASSERT_CL_SUCCESS(clSetContextDestructorCallback(context, contextDestroyed, &callback));
  ASSERT_CL_SUCCESS(clRetainContext(context));
  ASSERT_CL_SUCCESS(clReleaseContext(context));
  EXPECT_TRUE(staysFalse([&] { return log.size() > 0; })) << "ran while a reference remained";
  ASSERT_CL_SUCCESS(clReleaseContext(context));
  ASSERT_TRUE(eventually([&] { return log.size() == 3; }));
  // "The registered callback functions are called in the reverse order in which they were
  // registered."
  EXPECT_EQ((std::vector<int>{3, 2, 1}), log.order);
}

TEST_F(ContextTest, DestructorCallbackWaitsForObjectsAttachedToTheContext) {
  // "After the reference count becomes zero and all the objects attached to context (such as
  // memory objects, command-queues) are released, the context is deleted."
  CallbackLog log;
  cl_int error = CL_SUCCESS;
  cl_context context = create().release();
  LoggedCallback callback{&log, 1, context};
  ASSERT_CL_SUCCESS(clSetContextDestructorCallback(context, contextDestroyed, &callback));
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device_, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &error);
  ASSERT_CL_SUCCESS(error);

  ASSERT_CL_SUCCESS(clReleaseContext(context));
  EXPECT_TRUE(staysFalse([&] { return log.size() > 0; })) << "ran while a queue and buffer live";
  // The objects still work and still report their context.
  int value = 7;
  EXPECT_CL_SUCCESS(
      clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, sizeof value, &value, 0, nullptr, nullptr));
  EXPECT_EQ(context, memInfo<cl_context>(buffer, CL_MEM_CONTEXT));
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer));
  EXPECT_TRUE(staysFalse([&] { return log.size() > 0; })) << "ran while a queue lives";
  ASSERT_CL_SUCCESS(clReleaseCommandQueue(queue));
  EXPECT_TRUE(eventually([&] { return log.size() == 1; }));
}

TEST_F(ContextTest, NullDestructorCallbackIsInvalidValue) {
  Context context = create();
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetContextDestructorCallback(context, nullptr, nullptr));
}
