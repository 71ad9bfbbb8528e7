// Object lifetimes: releasing buffers, kernels, programs, queues and contexts while commands that
// use them are still pending. The specification: a memory object is deleted "after the memobj
// reference count becomes zero and commands queued for execution on a command-queue(s) that use
// memobj have finished"; a kernel once "no longer needed by any enqueued commands"; a queue once
// "all commands queued to command_queue have finished"; a context once all objects attached to
// it are released. The pending commands must still run with correct results, and destructor
// callbacks must run only after the commands finished.
#include "cl_test.hpp"

#include <atomic>
#include <mutex>

using namespace cltest;

namespace {

/// What destructor callbacks saw: the order they ran in, and the status at that moment of the
/// last command that used the object.
struct Watch {
  std::mutex mutex;
  std::vector<std::string> order;
  std::vector<cl_int> statusAtDestruction;

  void record(const std::string &name, cl_event lastUse) {
    cl_int status = CL_COMPLETE;
    if (lastUse != nullptr)
      clGetEventInfo(lastUse, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    std::lock_guard lock(mutex);
    order.push_back(name);
    statusAtDestruction.push_back(status);
  }
  size_t count() {
    std::lock_guard lock(mutex);
    return order.size();
  }
  /// Every object was destroyed only after the last command that used it finished.
  void expectDestroyedAfterUse() {
    std::lock_guard lock(mutex);
    for (size_t index = 0; index < order.size(); ++index)
      EXPECT_EQ(CL_COMPLETE, statusAtDestruction[index])
          << order[index] << " was destroyed before the last command using it finished";
  }
};

struct Named {
  Watch *watch;
  std::string name;
  cl_event lastUse = nullptr; // retained by the test while the object may be destroyed
};

void CL_CALLBACK memGone(cl_mem, void *data) {
  auto *named = static_cast<Named *>(data);
  named->watch->record(named->name, named->lastUse);
}

void CL_CALLBACK contextGone(cl_context, void *data) {
  auto *named = static_cast<Named *>(data);
  named->watch->record(named->name, nullptr);
}

class LifetimeTest : public ::testing::TestWithParam<bool> {
protected:
  /// Gated: the commands wait for a user event that is set only after every object was
  /// released. The specification makes releasing objects (other than events) before setting
  /// such user events undefined behaviour, so the gated variant checks a Kiln guarantee
  /// (runtime/objects/object.hpp: in-flight commands hold their objects) and runs on Kiln only.
  /// Ungated: the commands are merely still queued or running, which is fully specified.
  bool gated() const { return GetParam(); }

  void SetUp() override {
    if (gated() && !isKiln())
      GTEST_SKIP() << "releasing objects before setting a user event their commands wait for is "
                      "undefined behaviour outside Kiln";
    device_ = device();
  }

  cl_device_id device_ = nullptr;
};

} // namespace

TEST_P(LifetimeTest, ReleasingBuffersQueueAndContextLetsPendingCopiesFinish) {
  cl_int error = CL_SUCCESS;
  Watch watch;
  Named sourceName{&watch, "source"}, destinationName{&watch, "destination"},
      contextName{&watch, "context"};

  cl_context context = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetContextDestructorCallback(context, contextGone, &contextName));
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device_, nullptr, &error);
  ASSERT_CL_SUCCESS(error);

  const size_t count = 4 << 20; // large enough that the copies are usually still running
  std::vector<int> data(count);
  for (size_t index = 0; index < count; ++index)
    data[index] = static_cast<int>(index * 3 + 1);
  std::vector<int> result(count, 0);
  cl_mem source =
      clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, count * sizeof(int), data.data(), &error);
  ASSERT_CL_SUCCESS(error);
  cl_mem destination =
      clCreateBuffer(context, CL_MEM_USE_HOST_PTR, count * sizeof(int), result.data(), &error);
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(source, memGone, &sourceName));
  ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(destination, memGone, &destinationName));

  cl_event gate = nullptr;
  if (gated()) {
    gate = clCreateUserEvent(context, &error);
    ASSERT_CL_SUCCESS(error);
  }
  // A few copies, then a map and unmap that make the result visible in `result` (the host
  // memory of a CL_MEM_USE_HOST_PTR buffer) once they complete.
  cl_event lastCopy = nullptr, unmapped = nullptr;
  for (int round = 0; round < 3; ++round) {
    if (lastCopy != nullptr)
      ASSERT_CL_SUCCESS(clReleaseEvent(lastCopy));
    ASSERT_CL_SUCCESS(clEnqueueCopyBuffer(queue, source, destination, 0, 0, count * sizeof(int),
                                          gate != nullptr ? 1 : 0,
                                          gate != nullptr ? &gate : nullptr, &lastCopy));
  }
  void *mapped = clEnqueueMapBuffer(queue, destination, CL_FALSE, CL_MAP_READ, 0,
                                    count * sizeof(int), 0, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue, destination, mapped, 0, nullptr, &unmapped));
  sourceName.lastUse = lastCopy;
  destinationName.lastUse = unmapped;

  ASSERT_CL_SUCCESS(clReleaseMemObject(source));
  ASSERT_CL_SUCCESS(clReleaseMemObject(destination));
  ASSERT_CL_SUCCESS(clReleaseCommandQueue(queue));
  ASSERT_CL_SUCCESS(clReleaseContext(context));

  if (gate != nullptr) {
    EXPECT_TRUE(staysFalse([&] { return watch.count() > 0; }))
        << "an object was destroyed while a command that uses it was waiting";
    EXPECT_EQ(CL_QUEUED, eventStatus(unmapped));
    ASSERT_CL_SUCCESS(clSetUserEventStatus(gate, CL_COMPLETE));
  }
  ASSERT_CL_SUCCESS(clWaitForEvents(1, &unmapped));
  EXPECT_TRUE(equalArrays(data, result));

  // Both buffers go once their commands have finished; the context still lives while the
  // events (attached to it) do.
  ASSERT_TRUE(eventually([&] { return watch.count() >= 2; }));
  EXPECT_TRUE(staysFalse([&] { return watch.count() > 2; }));
  watch.expectDestroyedAfterUse();
  sourceName.lastUse = destinationName.lastUse = nullptr;
  ASSERT_CL_SUCCESS(clReleaseEvent(lastCopy));
  ASSERT_CL_SUCCESS(clReleaseEvent(unmapped));
  if (gate != nullptr)
    ASSERT_CL_SUCCESS(clReleaseEvent(gate));
  ASSERT_TRUE(eventually([&] { return watch.count() == 3; }));
  EXPECT_EQ("context", watch.order.back()) << "the context went before an object attached to it";
}

TEST_P(LifetimeTest, ReleasingKernelProgramBufferQueueAndContextLetsAPendingKernelFinish) {
  cl_int error = CL_SUCCESS;
  Watch watch;
  Named bufferName{&watch, "buffer"}, contextName{&watch, "context"};
  cl_context context = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetContextDestructorCallback(context, contextGone, &contextName));
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device_, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  Program program = buildProgram(context, device_, R"(
    kernel void fill(global int *out, int base) {
      size_t i = get_global_id(0);
      out[i] = base + (int)i * 2;
    })");
  if (program == nullptr) {
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    FAIL() << "the program did not build";
  }
  cl_kernel kernel = clCreateKernel(program, "fill", &error);
  ASSERT_CL_SUCCESS(error);

  const size_t count = 1 << 16;
  std::vector<int> result(count, -1);
  cl_mem buffer =
      clCreateBuffer(context, CL_MEM_USE_HOST_PTR, count * sizeof(int), result.data(), &error);
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(buffer, memGone, &bufferName));
  int base = 1000;
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof base, &base));

  cl_event gate = nullptr;
  if (gated()) {
    gate = clCreateUserEvent(context, &error);
    ASSERT_CL_SUCCESS(error);
  }
  ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &count, nullptr,
                                           gate != nullptr ? 1 : 0,
                                           gate != nullptr ? &gate : nullptr, nullptr));
  cl_event unmapped = nullptr;
  void *mapped = clEnqueueMapBuffer(queue, buffer, CL_FALSE, CL_MAP_READ, 0, count * sizeof(int), 0,
                                    nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue, buffer, mapped, 0, nullptr, &unmapped));
  bufferName.lastUse = unmapped;

  // Changing the kernel's arguments after the enqueue must not affect the enqueued command.
  int otherBase = -5;
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof otherBase, &otherBase));
  ASSERT_CL_SUCCESS(clReleaseKernel(kernel));
  program.reset();
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer));
  ASSERT_CL_SUCCESS(clReleaseCommandQueue(queue));
  ASSERT_CL_SUCCESS(clReleaseContext(context));

  if (gate != nullptr) {
    EXPECT_TRUE(staysFalse([&] { return watch.count() > 0; }));
    ASSERT_CL_SUCCESS(clSetUserEventStatus(gate, CL_COMPLETE));
  }
  ASSERT_CL_SUCCESS(clWaitForEvents(1, &unmapped));
  std::vector<int> expected(count);
  for (size_t index = 0; index < count; ++index)
    expected[index] = base + static_cast<int>(index) * 2;
  EXPECT_TRUE(equalArrays(expected, result));
  ASSERT_TRUE(eventually([&] { return watch.count() >= 1; }));
  watch.expectDestroyedAfterUse();
  EXPECT_EQ("buffer", watch.order[0]);
  bufferName.lastUse = nullptr;
  ASSERT_CL_SUCCESS(clReleaseEvent(unmapped));
  if (gate != nullptr)
    ASSERT_CL_SUCCESS(clReleaseEvent(gate));
  ASSERT_TRUE(eventually([&] { return watch.count() == 2; }));
  EXPECT_EQ("context", watch.order.back());
}

TEST_P(LifetimeTest, ReleasingAQueueFlushesIt) {
  // "clReleaseCommandQueue performs an implicit flush to issue any previously queued OpenCL
  // commands in command_queue": with nothing else called on the queue, its commands complete.
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device_, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  Mem buffer(clCreateBuffer(context, CL_MEM_READ_WRITE, 4096, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Event gate;
  if (gated()) {
    gate = Event(clCreateUserEvent(context, &error));
    ASSERT_CL_SUCCESS(error);
  }
  int pattern = 0x5a5a5a5a;
  Event filled;
  ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue, buffer, &pattern, sizeof pattern, 0, 4096,
                                        gate != nullptr ? 1 : 0,
                                        gate != nullptr ? gate.ptr() : nullptr, filled.out()));
  ASSERT_CL_SUCCESS(clReleaseCommandQueue(queue));
  if (gate != nullptr)
    ASSERT_CL_SUCCESS(clSetUserEventStatus(gate, CL_COMPLETE));
  EXPECT_TRUE(eventually([&] { return eventStatus(filled) == CL_COMPLETE; }));
  EXPECT_EQ(context.get(), eventInfo<cl_context>(filled, CL_EVENT_CONTEXT));
}

INSTANTIATE_TEST_SUITE_P(Lifetime, LifetimeTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? std::string("GatedByUserEvent")
                                             : std::string("StillQueued");
                         });
