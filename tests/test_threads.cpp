// Several host threads at once: one context shared by threads that each have their own queue and
// enqueue copies and kernels, threads sharing one queue, concurrent program builds, and
// concurrent creation and release of objects with callbacks. The OpenCL API is thread-safe
// except for clSetKernelArg (and clSetKernelExecInfo) on one kernel object from several threads.
#include "cl_test.hpp"

#include <atomic>
#include <thread>

using namespace cltest;

namespace {

constexpr int kThreads = 4;

class ThreadTest : public ClTest {
protected:
  /// Runs `body(thread)` on kThreads threads and joins them.
  template <typename Body> void onThreads(Body body) {
    std::vector<std::thread> threads;
    for (int thread = 0; thread < kThreads; ++thread)
      threads.emplace_back(body, thread);
    for (std::thread &thread : threads)
      thread.join();
  }
};

} // namespace

TEST_F(ThreadTest, QueuesOfOneContextCopyConcurrently) {
  std::atomic<int> failures{0};
  onThreads([&](int thread) {
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
    if (error != CL_SUCCESS) {
      ++failures;
      return;
    }
    const size_t count = 16384;
    Mem first(clCreateBuffer(context_, CL_MEM_READ_WRITE, count * sizeof(int), nullptr, &error));
    Mem second(clCreateBuffer(context_, CL_MEM_READ_WRITE, count * sizeof(int), nullptr, &error));
    Random random(thread + 1);
    for (int round = 0; round < 30; ++round) {
      std::vector<int> data = random.values<int>(count), out(count, 0);
      size_t offset = (round * 97) % count;
      bool ok = clEnqueueWriteBuffer(queue, first, CL_FALSE, 0, count * sizeof(int), data.data(), 0,
                                     nullptr, nullptr) == CL_SUCCESS &&
                clEnqueueCopyBuffer(queue, first, second, 0, 0, count * sizeof(int), 0, nullptr,
                                    nullptr) == CL_SUCCESS &&
                clEnqueueReadBuffer(queue, second, CL_TRUE, offset * sizeof(int),
                                    (count - offset) * sizeof(int), out.data(), 0, nullptr,
                                    nullptr) == CL_SUCCESS;
      if (!ok || !std::equal(data.begin() + offset, data.end(), out.begin()))
        ++failures;
    }
  });
  EXPECT_EQ(0, failures.load());
}

TEST_F(ThreadTest, ThreadsShareOneQueue) {
  // Each thread writes its own quarter of one buffer through the fixture's queue.
  const size_t perThread = 4096;
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, kThreads * perThread * sizeof(int));
  std::atomic<int> failures{0};
  onThreads([&](int thread) {
    std::vector<int> data(perThread, thread * 1000);
    for (int round = 0; round < 20; ++round) {
      for (int &value : data)
        ++value;
      if (clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, thread * perThread * sizeof(int),
                               perThread * sizeof(int), data.data(), 0, nullptr,
                               nullptr) != CL_SUCCESS)
        ++failures;
    }
  });
  EXPECT_EQ(0, failures.load());
  std::vector<int> expected;
  for (int thread = 0; thread < kThreads; ++thread)
    expected.insert(expected.end(), perThread, thread * 1000 + 20);
  EXPECT_TRUE(equalArrays(expected, read<int>(buffer, kThreads * perThread)));
}

TEST_F(ThreadTest, QueuesOfOneContextRunKernelsConcurrently) {
  Program program = build(R"(
    kernel void affine(global const int *in, global int *out, int scale, int shift) {
      size_t i = get_global_id(0);
      out[i] = in[i] * scale + shift;
    })");
  ASSERT_NE(nullptr, program.get());
  std::atomic<int> failures{0};
  onThreads([&](int thread) {
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
    // One kernel object per thread: clSetKernelArg is not thread-safe on a shared kernel.
    Kernel kernel(clCreateKernel(program, "affine", &error));
    if (error != CL_SUCCESS) {
      ++failures;
      return;
    }
    const size_t count = 4096;
    std::vector<int> input(count);
    for (size_t index = 0; index < count; ++index)
      input[index] = static_cast<int>(index) - thread;
    Mem in(
        clCreateBuffer(context_, CL_MEM_COPY_HOST_PTR, count * sizeof(int), input.data(), &error));
    Mem out(clCreateBuffer(context_, CL_MEM_READ_WRITE, count * sizeof(int), nullptr, &error));
    for (int round = 0; round < 10; ++round) {
      int scale = thread + 2, shift = round;
      cl_mem inRaw = in, outRaw = out;
      std::vector<int> result(count);
      bool ok = clSetKernelArg(kernel, 0, sizeof inRaw, &inRaw) == CL_SUCCESS &&
                clSetKernelArg(kernel, 1, sizeof outRaw, &outRaw) == CL_SUCCESS &&
                clSetKernelArg(kernel, 2, sizeof scale, &scale) == CL_SUCCESS &&
                clSetKernelArg(kernel, 3, sizeof shift, &shift) == CL_SUCCESS &&
                clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &count, nullptr, 0, nullptr,
                                       nullptr) == CL_SUCCESS &&
                clEnqueueReadBuffer(queue, out, CL_TRUE, 0, count * sizeof(int), result.data(), 0,
                                    nullptr, nullptr) == CL_SUCCESS;
      for (size_t index = 0; ok && index < count; ++index)
        ok = result[index] == input[index] * scale + shift;
      if (!ok)
        ++failures;
    }
  });
  EXPECT_EQ(0, failures.load());
}

TEST_F(ThreadTest, ConcurrentBuildsOfDifferentPrograms) {
  std::atomic<int> failures{0};
  std::vector<std::string> logs(kThreads);
  onThreads([&](int thread) {
    std::string name = "kernel_" + std::to_string(thread);
    std::string source =
        "kernel void " + name +
        "(global int *out) { out[get_global_id(0)] = VALUE * (int)get_global_id(0); }\n"
        "int helper_" +
        std::to_string(thread) + "(int x) { return x + " + std::to_string(thread) + "; }\n";
    std::string options = "-DVALUE=" + std::to_string(thread + 1);
    const char *text = source.c_str();
    cl_int error = CL_SUCCESS;
    Program program(clCreateProgramWithSource(context_, 1, &text, nullptr, &error));
    error = clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
    if (error != CL_SUCCESS) {
      logs[thread] = buildLog(program, device_);
      ++failures;
      return;
    }
    char names[128] = {};
    clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, nullptr);
    if (name != names) {
      logs[thread] = std::string("kernel names: ") + names;
      ++failures;
      return;
    }
    // Run it on a queue of the thread's own.
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
    Kernel kernel(clCreateKernel(program, name.c_str(), &error));
    Mem out(clCreateBuffer(context_, CL_MEM_READ_WRITE, 64 * sizeof(int), nullptr, &error));
    cl_mem raw = out;
    size_t global = 64;
    std::vector<int> result(64);
    bool ok = kernel != nullptr && clSetKernelArg(kernel, 0, sizeof raw, &raw) == CL_SUCCESS &&
              clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                     nullptr) == CL_SUCCESS &&
              clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 64 * sizeof(int), result.data(), 0,
                                  nullptr, nullptr) == CL_SUCCESS;
    for (int index = 0; ok && index < 64; ++index)
      ok = result[index] == (thread + 1) * index;
    if (!ok) {
      logs[thread] = "wrong results";
      ++failures;
    }
  });
  EXPECT_EQ(0, failures.load());
  for (int thread = 0; thread < kThreads; ++thread)
    EXPECT_TRUE(logs[thread].empty()) << "thread " << thread << ": " << logs[thread];
}

TEST_F(ThreadTest, ConcurrentBuildsOfOneSourceInSeparatePrograms) {
  std::atomic<int> failures{0};
  onThreads([&](int thread) {
    for (int round = 0; round < 3; ++round) {
      BuildResult result =
          tryBuild(context_, device_, "kernel void k(global float *o) { o[0] = sqrt(o[1]); }",
                   round % 2 == 0 ? "-cl-fast-relaxed-math" : "");
      if (result.error != CL_SUCCESS)
        ++failures;
    }
  });
  EXPECT_EQ(0, failures.load());
}

TEST_F(ThreadTest, ConcurrentObjectCreationReleaseAndCallbacks) {
  std::atomic<int> callbacks{0}, destructors{0}, failures{0};
  onThreads([&](int thread) {
    for (int round = 0; round < 50; ++round) {
      cl_int error = CL_SUCCESS;
      cl_event event = clCreateUserEvent(context_, &error);
      cl_mem buffer = clCreateBuffer(context_, CL_MEM_READ_WRITE, 1024, nullptr, &error);
      if (event == nullptr || buffer == nullptr) {
        ++failures;
        continue;
      }
      clSetEventCallback(
          event, CL_COMPLETE,
          [](cl_event, cl_int, void *data) { static_cast<std::atomic<int> *>(data)->fetch_add(1); },
          &callbacks);
      clSetMemObjectDestructorCallback(
          buffer, [](cl_mem, void *data) { static_cast<std::atomic<int> *>(data)->fetch_add(1); },
          &destructors);
      if (clSetUserEventStatus(event, CL_COMPLETE) != CL_SUCCESS)
        ++failures;
      clReleaseEvent(event);
      clReleaseMemObject(buffer);
    }
  });
  EXPECT_EQ(0, failures.load());
  EXPECT_TRUE(eventually([&] { return callbacks == kThreads * 50; })) << callbacks;
  EXPECT_TRUE(eventually([&] { return destructors == kThreads * 50; })) << destructors;
}

TEST_F(ThreadTest, UserEventSetByAnotherThreadReleasesBlockedCommands) {
  Gate gate(context_);
  std::vector<int> data(1024, 77);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, data.size() * sizeof(int));
  std::atomic<bool> readDone{false};
  std::vector<int> out(data.size(), 0);
  Event write;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_FALSE, 0, data.size() * sizeof(int),
                                         data.data(), 1, gate.list(), write.out()));
  // A blocking read on another thread waits behind the gated write (in-order queue).
  std::thread blocked([&] {
    clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, out.size() * sizeof(int), out.data(), 0,
                        nullptr, nullptr);
    readDone = true;
  });
  EXPECT_TRUE(staysFalse([&] { return readDone.load(); })) << "read returned before the write ran";
  std::thread setter([&] { gate.open(); });
  setter.join();
  blocked.join();
  EXPECT_TRUE(readDone.load());
  EXPECT_TRUE(equalArrays(data, out));
}

TEST_F(ThreadTest, ManyThreadsWaitOnOneUserEvent) {
  // Commands of several queues, enqueued concurrently, all wait for one user event; callbacks
  // are registered on it concurrently too. Completing it releases every command exactly once.
  Gate gate(context_);
  const int rounds = 25;
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, kThreads * rounds * sizeof(int));
  std::atomic<int> callbacks{0}, failures{0}, ready{0};
  std::vector<std::vector<int>> values(kThreads, std::vector<int>(rounds));
  std::vector<std::vector<Event>> events(kThreads);
  std::vector<Queue> queues(kThreads);
  for (int thread = 0; thread < kThreads; ++thread) {
    cl_int error = CL_SUCCESS;
    queues[thread] = Queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
  }
  onThreads([&](int thread) {
    for (int round = 0; round < rounds; ++round) {
      values[thread][round] = thread * 1000 + round;
      Event event;
      if (clEnqueueWriteBuffer(queues[thread], buffer, CL_FALSE,
                               (thread * rounds + round) * sizeof(int), sizeof(int),
                               &values[thread][round], 1, gate.list(), event.out()) != CL_SUCCESS)
        ++failures;
      if (clSetEventCallback(
              gate, CL_COMPLETE,
              [](cl_event, cl_int, void *data) {
                static_cast<std::atomic<int> *>(data)->fetch_add(1);
              },
              &callbacks) != CL_SUCCESS)
        ++failures;
      events[thread].push_back(std::move(event));
    }
    ++ready;
  });
  ASSERT_EQ(kThreads, ready.load());
  ASSERT_EQ(0, failures.load());
  for (auto &list : events)
    for (Event &event : list)
      EXPECT_EQ(CL_QUEUED, eventStatus(event));
  ASSERT_CL_SUCCESS(gate.open());
  for (Queue &queue : queues)
    ASSERT_CL_SUCCESS(clFinish(queue));
  EXPECT_TRUE(eventually([&] { return callbacks == kThreads * rounds; })) << callbacks;
  std::vector<int> expected;
  for (int thread = 0; thread < kThreads; ++thread)
    expected.insert(expected.end(), values[thread].begin(), values[thread].end());
  EXPECT_TRUE(equalArrays(expected, read<int>(buffer, kThreads * rounds)));
}
