// Command queues: creation with and without properties, queries, invalid properties, reference
// counts, clFlush and clFinish.
#include "cl_test.hpp"

using namespace cltest;

namespace {

class QueueTest : public ClTest {
protected:
  cl_command_queue_properties hostProperties() {
    return deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
  }
  bool deviceEnqueue() {
    return deviceInfo<cl_device_device_enqueue_capabilities>(
               device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES) != 0;
  }
  Queue withProperties(const cl_queue_properties *properties, cl_int &error) {
    return Queue(clCreateCommandQueueWithProperties(context_, device_, properties, &error));
  }
};

} // namespace

TEST_F(QueueTest, DefaultQueueReportsItsContextDeviceAndProperties) {
  EXPECT_EQ(context_.get(), queueInfo<cl_context>(queue_, CL_QUEUE_CONTEXT));
  EXPECT_EQ(device_, queueInfo<cl_device_id>(queue_, CL_QUEUE_DEVICE));
  EXPECT_GE(refCount(queue_.get()), 1u);
  // "If CL_QUEUE_PROPERTIES is not specified an in-order host command-queue is created".
  EXPECT_EQ(0u, queueInfo<cl_command_queue_properties>(queue_, CL_QUEUE_PROPERTIES));
}

TEST_F(QueueTest, PropertiesArrayOfNullPropertiesHasSizeZero) {
  // "if the properties argument specified in clCreateCommandQueueWithProperties was NULL, the
  // implementation must return param_value_size_ret equal to 0".
  size_t size = 99;
  ASSERT_CL_SUCCESS(clGetCommandQueueInfo(queue_, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
}

TEST_F(QueueTest, PropertiesArrayOfClCreateCommandQueueHasSizeZero) {
  cl_int error = CL_SUCCESS;
  Queue queue(clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &error));
  ASSERT_CL_SUCCESS(error);
  size_t size = 99;
  ASSERT_CL_SUCCESS(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
  EXPECT_EQ(CL_QUEUE_PROFILING_ENABLE,
            queueInfo<cl_command_queue_properties>(queue, CL_QUEUE_PROPERTIES));
}

TEST_F(QueueTest, PropertiesArrayIsReportedAsGiven) {
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  ASSERT_CL_SUCCESS(error);
  auto reported = queryArray<cl_queue_properties>([&](size_t s, void *v, size_t *r) {
    return clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, s, v, r);
  });
  EXPECT_EQ(std::vector<cl_queue_properties>(std::begin(properties), std::end(properties)),
            reported);
  EXPECT_EQ(CL_QUEUE_PROFILING_ENABLE,
            queueInfo<cl_command_queue_properties>(queue, CL_QUEUE_PROPERTIES));
}

TEST_F(QueueTest, EverySupportedHostPropertyCombinationCanBeCreated) {
  cl_command_queue_properties supported = hostProperties();
  for (cl_command_queue_properties flags :
       {cl_command_queue_properties{0}, cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE},
        cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE},
        cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE |
                                    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE}}) {
    if ((flags & supported) != flags)
      continue;
    cl_int error = CL_SUCCESS;
    Queue legacy(clCreateCommandQueue(context_, device_, flags, &error));
    EXPECT_CL_SUCCESS(error) << flags;
    EXPECT_EQ(flags, queueInfo<cl_command_queue_properties>(legacy, CL_QUEUE_PROPERTIES));
    cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, flags, 0};
    Queue modern = withProperties(properties, error);
    EXPECT_CL_SUCCESS(error) << flags;
    EXPECT_EQ(flags, queueInfo<cl_command_queue_properties>(modern, CL_QUEUE_PROPERTIES));
  }
}

TEST_F(QueueTest, EmptyPropertyListIsAccepted) {
  cl_queue_properties properties[] = {0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  EXPECT_CL_SUCCESS(error);
  EXPECT_EQ(0u, queueInfo<cl_command_queue_properties>(queue, CL_QUEUE_PROPERTIES));
}

TEST_F(QueueTest, UnknownPropertyNameIsInvalidValue) {
  cl_queue_properties properties[] = {0x7FFF, 1, 0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  EXPECT_EQ(nullptr, queue.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(QueueTest, UnknownPropertyBitIsInvalidValue) {
  cl_int error = CL_SUCCESS;
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, cl_queue_properties{1} << 20, 0};
  Queue queue = withProperties(properties, error);
  EXPECT_EQ(nullptr, queue.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  Queue legacy(
      clCreateCommandQueue(context_, device_, cl_command_queue_properties{1} << 20, &error));
  EXPECT_EQ(nullptr, legacy.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(QueueTest, QueueSizeWithoutOnDeviceIsInvalidValue) {
  // CL_QUEUE_SIZE "can only be specified if CL_QUEUE_ON_DEVICE is set in CL_QUEUE_PROPERTIES".
  // (PoCL 3.1 accepts it.)
  cl_queue_properties properties[] = {CL_QUEUE_SIZE, 1024, 0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  EXPECT_EQ(nullptr, queue.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(QueueTest, OnDeviceWithoutOutOfOrderIsInvalidValue) {
  SKIP_ON_POCL("aborts on any CL_QUEUE_ON_DEVICE request (\"unimplemented\")");
  // "If CL_QUEUE_ON_DEVICE is set, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE must also be set":
  // the value is not valid (CL_INVALID_VALUE), whether or not the device has device queues.
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  EXPECT_EQ(nullptr, queue.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(QueueTest, OnDeviceDefaultWithoutOnDeviceIsInvalidValue) {
  // CL_QUEUE_ON_DEVICE_DEFAULT "can only be used with CL_QUEUE_ON_DEVICE". (PoCL 3.1 accepts it.)
  cl_queue_properties properties[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  EXPECT_EQ(nullptr, queue.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(QueueTest, DeviceQueueWithoutDeviceEnqueueIsInvalidQueueProperties) {
  SKIP_ON_POCL("aborts on any CL_QUEUE_ON_DEVICE request (\"unimplemented\")");
  if (deviceEnqueue())
    GTEST_SKIP() << "the device supports device-side enqueue";
  // Valid values that the device does not support: CL_INVALID_QUEUE_PROPERTIES.
  cl_queue_properties properties[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(properties, error);
  EXPECT_EQ(nullptr, queue.get());
  EXPECT_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES, error);
}

TEST_F(QueueTest, UnsupportedOutOfOrderIsInvalidQueueProperties) {
  if (hostProperties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    GTEST_SKIP() << "out-of-order queues are supported";
  cl_int error = CL_SUCCESS;
  Queue queue(
      clCreateCommandQueue(context_, device_, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &error));
  EXPECT_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES, error);
}

TEST_F(QueueTest, NullContextIsInvalidContext) {
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(nullptr, device_, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
  EXPECT_EQ(nullptr, clCreateCommandQueue(nullptr, device_, 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

TEST_F(QueueTest, NullDeviceIsInvalidDevice) {
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(context_, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, error);
}

TEST_F(QueueTest, DeviceOutsideTheContextIsInvalidDevice) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(context_, foreign.as<cl_device_id>(device_),
                                                        nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, error);
}

TEST_F(QueueTest, ForeignContextIsInvalidContext) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(foreign.as<cl_context>(context_.get()),
                                                        device_, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

// ---------------------------------------------------------------------------------------------

TEST_F(QueueTest, QueueSizeOfAHostQueueIsInvalidCommandQueue) {
  // CL_QUEUE_SIZE: "To be considered valid for this query, command_queue must be a device
  // command-queue"; otherwise "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
  // command-queue for param_name".
  cl_uint size = 0;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clGetCommandQueueInfo(queue_, CL_QUEUE_SIZE, sizeof size, &size, nullptr));
}

TEST_F(QueueTest, DeviceDefaultIsNullWithoutDeviceEnqueue) {
  if (deviceEnqueue())
    GTEST_SKIP() << "the device supports device-side enqueue";
  EXPECT_EQ(nullptr, queueInfo<cl_command_queue>(queue_, CL_QUEUE_DEVICE_DEFAULT));
}

TEST_F(QueueTest, InfoErrors) {
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetCommandQueueInfo(queue_, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetCommandQueueInfo(queue_, CL_QUEUE_REFERENCE_COUNT,
                                                          sizeof value - 1, &value, nullptr));
  cl_context context = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetCommandQueueInfo(queue_, CL_QUEUE_CONTEXT, 4, &context, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clGetCommandQueueInfo(nullptr, CL_QUEUE_REFERENCE_COUNT,
                                                                  sizeof value, &value, nullptr));
}

TEST_F(QueueTest, RetainAndReleaseMoveTheReferenceCount) {
  cl_uint initial = refCount(queue_.get());
  ASSERT_CL_SUCCESS(clRetainCommandQueue(queue_));
  EXPECT_EQ(initial + 1, refCount(queue_.get()));
  ASSERT_CL_SUCCESS(clReleaseCommandQueue(queue_));
  EXPECT_EQ(initial, refCount(queue_.get()));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(nullptr));
}

TEST_F(QueueTest, QueueHoldsItsContext) {
  // A queue keeps its context alive: the context's count rises with each queue.
  cl_uint before = refCount(context_.get());
  cl_int error = CL_SUCCESS;
  Queue queue = withProperties(nullptr, error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_GE(refCount(context_.get()), before);
  EXPECT_EQ(context_.get(), queueInfo<cl_context>(queue, CL_QUEUE_CONTEXT));
}

TEST_F(QueueTest, FlushAndFinishSucceedOnAnEmptyQueue) {
  EXPECT_CL_SUCCESS(clFlush(queue_));
  EXPECT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(QueueTest, FlushAndFinishOfAnInvalidQueueAreInvalidCommandQueue) {
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clFlush(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clFinish(nullptr));
}

TEST_F(QueueTest, ForeignQueueIsInvalidCommandQueue) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_command_queue queue = foreign.as<cl_command_queue>(queue_.get());
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clFlush(queue));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clFinish(queue));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(queue));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(queue));
  // A context is not a queue.
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clFinish(reinterpret_cast<cl_command_queue>(context_.get())));
}

TEST_F(QueueTest, FinishWaitsForEveryCommand) {
  const size_t count = 1 << 20;
  std::vector<int> data(count, 7);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, count * sizeof(int));
  std::vector<Event> events(8);
  for (Event &event : events)
    ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_FALSE, 0, count * sizeof(int),
                                           data.data(), 0, nullptr, event.out()));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  for (Event &event : events)
    EXPECT_EQ(CL_COMPLETE, eventStatus(event));
}

TEST_F(QueueTest, FlushSubmitsCommandsThatThenComplete) {
  int value = 5;
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, sizeof value);
  Event event;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_FALSE, 0, sizeof value, &value, 0,
                                         nullptr, event.out()));
  ASSERT_CL_SUCCESS(clFlush(queue_));
  // After clFlush, the command is guaranteed to be submitted and eventually completes without
  // any further call on the queue.
  EXPECT_TRUE(eventually([&] { return eventStatus(event) == CL_COMPLETE; }));
}

TEST_F(QueueTest, SetCommandQueuePropertyOfAnInvalidQueueIsInvalidCommandQueue) {
  cl_command_queue_properties old = 0;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clSetCommandQueueProperty(nullptr, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old));
}
