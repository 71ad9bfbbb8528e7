// Independent commands run side by side on a GPU: those of two in-order queues of one device,
// and those of one out-of-order queue. Each kernel is one long chain of dependent arithmetic in
// a single work-item, far from filling the device, so running them one after the other would
// take twice as long; their profiled intervals must overlap.
#include "cl_test.hpp"

using namespace cltest;

namespace {

const char *kChainSource = R"(
  kernel void chain(global uint *out, uint steps) {
    uint value = out[0];
    for (uint i = 0; i < steps; ++i)
      value = value * 1664525u + 1013904223u;
    out[0] = value;
  })";

class ConcurrencyTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    // A CPU device spreads every kernel over all of its cores already; side-by-side execution
    // of separate commands is what a GPU's streams add.
    if ((deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) == 0)
      GTEST_SKIP() << "not a GPU";
    kernel_ = buildKernel(kChainSource, "chain");
    ASSERT_NE(nullptr, kernel_.get());
  }

  Queue profiledQueue(cl_command_queue_properties extra = 0) {
    cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE | extra, 0};
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, properties, &error));
    EXPECT_CL_SUCCESS(error);
    return queue;
  }

  /// One work-item of `chain` over `steps` on `queue`, in a buffer of its own.
  Event launch(cl_command_queue queue, cl_uint steps, std::vector<Mem> &buffers) {
    buffers.push_back(bufferWith(std::vector<cl_uint>{1u}));
    Kernel kernel(clCloneKernel(kernel_, nullptr));
    EXPECT_TRUE(setArgs(kernel, buffers.back(), steps));
    size_t one = 1;
    Event done;
    EXPECT_CL_SUCCESS(
        clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0, nullptr, done.out()));
    return done;
  }

  static cl_ulong profile(cl_event event, cl_profiling_info which) {
    cl_ulong value = 0;
    EXPECT_CL_SUCCESS(clGetEventProfilingInfo(event, which, sizeof value, &value, nullptr));
    return value;
  }

  /// Steps that keep one work-item busy for at least 20 ms.
  cl_uint stepsForTwentyMilliseconds() {
    Queue queue = profiledQueue();
    std::vector<Mem> buffers;
    cl_uint steps = 1 << 16;
    for (;;) {
      Event alone = launch(queue, steps, buffers);
      EXPECT_CL_SUCCESS(clWaitForEvents(1, alone.ptr()));
      cl_ulong took =
          profile(alone, CL_PROFILING_COMMAND_END) - profile(alone, CL_PROFILING_COMMAND_START);
      if (took >= 20'000'000 || steps >= (1u << 30))
        return steps;
      steps *= 2;
    }
  }

  /// Whether the two commands' executions overlapped in time.
  static ::testing::AssertionResult overlapped(cl_event first, cl_event second) {
    cl_ulong start[] = {profile(first, CL_PROFILING_COMMAND_START),
                        profile(second, CL_PROFILING_COMMAND_START)};
    cl_ulong end[] = {profile(first, CL_PROFILING_COMMAND_END),
                      profile(second, CL_PROFILING_COMMAND_END)};
    if (std::max(start[0], start[1]) < std::min(end[0], end[1]))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "ran one after the other: [" << 0 << ", " << (end[0] - start[0]) / 1000 << "] and ["
           << (static_cast<long long>(start[1]) - static_cast<long long>(start[0])) / 1000 << ", "
           << (static_cast<long long>(end[1]) - static_cast<long long>(start[0])) / 1000 << "] us";
  }

  Kernel kernel_;
};

TEST_F(ConcurrencyTest, TwoInOrderQueuesOfOneDeviceRunSideBySide) {
  cl_uint steps = stepsForTwentyMilliseconds();
  Queue first = profiledQueue(), second = profiledQueue();
  std::vector<Mem> buffers;
  Event a = launch(first, steps, buffers);
  Event b = launch(second, steps, buffers);
  ASSERT_CL_SUCCESS(clFinish(first));
  ASSERT_CL_SUCCESS(clFinish(second));
  EXPECT_TRUE(overlapped(a, b));
}

TEST_F(ConcurrencyTest, IndependentCommandsOfAnOutOfOrderQueueRunSideBySide) {
  cl_uint steps = stepsForTwentyMilliseconds();
  Queue queue = profiledQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  std::vector<Mem> buffers;
  Event a = launch(queue, steps, buffers);
  Event b = launch(queue, steps, buffers);
  ASSERT_CL_SUCCESS(clFinish(queue));
  EXPECT_TRUE(overlapped(a, b));
}

TEST_F(ConcurrencyTest, AnInOrderQueueStillRunsItsCommandsOneAfterTheOther) {
  cl_uint steps = stepsForTwentyMilliseconds();
  Queue queue = profiledQueue();
  std::vector<Mem> buffers;
  Event a = launch(queue, steps, buffers);
  Event b = launch(queue, steps, buffers);
  ASSERT_CL_SUCCESS(clFinish(queue));
  EXPECT_FALSE(overlapped(a, b));
  EXPECT_LE(profile(a, CL_PROFILING_COMMAND_END), profile(b, CL_PROFILING_COMMAND_START));
}

TEST_F(ConcurrencyTest, DependentCommandsOfAnOutOfOrderQueueRunInTheirOrder) {
  cl_uint steps = stepsForTwentyMilliseconds();
  Queue queue = profiledQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  std::vector<Mem> buffers;
  Event a = launch(queue, steps, buffers);
  // The second kernel reads and writes the first one's buffer, after it.
  Kernel kernel(clCloneKernel(kernel_, nullptr));
  ASSERT_TRUE(setArgs(kernel, buffers.back(), steps));
  size_t one = 1;
  Event b;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 1, a.ptr(), b.out()));
  ASSERT_CL_SUCCESS(clFinish(queue));
  EXPECT_LE(profile(a, CL_PROFILING_COMMAND_END), profile(b, CL_PROFILING_COMMAND_START));
  // The value went through both chains.
  cl_uint expected = 1u;
  for (cl_uint i = 0; i < 2 * steps; ++i)
    expected = expected * 1664525u + 1013904223u;
  EXPECT_EQ(expected, read<cl_uint>(buffers.back(), 1)[0]);
}

} // namespace
