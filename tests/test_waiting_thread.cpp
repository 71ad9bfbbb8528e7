// The thread that waits for a command (clFinish, clWaitForEvents, a blocking read) may run it
// itself, as Kiln's CPU device does with small launches. Whatever thread runs a command, its
// results are the same: the waiting thread's floating-point modes do not reach kernels, a thread
// with a small stack still gets kernels with large private arrays right, and the callbacks of a
// command never run on the thread waiting for it (a lock held around the wait would deadlock).
#include "cl_test.hpp"

#include <pthread.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace cltest;

namespace {

class WaitingThreadTest : public ClTest {};

/// Products that are denormal (flushed to zero under FTZ) and sums that round differently
/// towards zero than to nearest.
struct FloatCase {
  std::vector<float> left, right;
  FloatCase() {
    Random random(17);
    for (int index = 0; index < 256; ++index) {
      left.push_back(random.uniform(1.0f, 2.0f) * 1e-20f);
      right.push_back(random.uniform(1.0f, 2.0f) * 1e-20f); // product ~1e-40: denormal
      left.push_back(random.uniform(1.0f, 2.0f));
      right.push_back(random.uniform(1.0f, 2.0f) * 1e-8f); // sum rounds
    }
  }
};

} // namespace

#if defined(__x86_64__) || defined(__i386__)
TEST_F(WaitingThreadTest, TheWaitingThreadsFloatModesDoNotReachKernels) {
  Kernel kernel = buildKernel(R"(
    kernel void products_and_sums(global const float *a, global const float *b,
                                  global float *product, global float *sum) {
      size_t i = get_global_id(0);
      product[i] = a[i] * b[i];
      sum[i] = a[i] + b[i];
    })",
                              "products_and_sums");
  ASSERT_NE(nullptr, kernel.get());
  FloatCase values;
  size_t count = values.left.size();
  std::vector<float> products(count), sums(count);
  for (size_t index = 0; index < count; ++index) {
    products[index] = values.left[index] * values.right[index];
    sums[index] = values.left[index] + values.right[index];
  }
  Mem a = bufferWith(values.left, CL_MEM_READ_ONLY);
  Mem b = bufferWith(values.right, CL_MEM_READ_ONLY);
  Mem product = createBuffer(CL_MEM_WRITE_ONLY, count * sizeof(float));
  Mem sum = createBuffer(CL_MEM_WRITE_ONLY, count * sizeof(float));
  ASSERT_TRUE(setArgs(kernel, a, b, product, sum));

  // Flush to zero, denormals are zero, round towards zero: what a renderer or a solver might set.
  const unsigned saved = _mm_getcsr();
  _mm_setcsr((saved & ~0x6000u) | 0x8000u | 0x0040u | 0x6000u);
  bool ranEveryRound = true;
  std::vector<float> gotProducts(count), gotSums(count);
  for (size_t global : {size_t{1}, size_t{2}, count}) { // one work-group, and several
    ranEveryRound = ranEveryRound &&
                    clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                           nullptr) == CL_SUCCESS &&
                    clEnqueueReadBuffer(queue_, product, CL_TRUE, 0, global * sizeof(float),
                                        gotProducts.data(), 0, nullptr, nullptr) == CL_SUCCESS &&
                    clEnqueueReadBuffer(queue_, sum, CL_TRUE, 0, global * sizeof(float),
                                        gotSums.data(), 0, nullptr, nullptr) == CL_SUCCESS;
  }
  const unsigned during = _mm_getcsr();
  _mm_setcsr(saved);
  ASSERT_TRUE(ranEveryRound);
  EXPECT_EQ(during & 0xFFC0u, (saved & ~0x6000u & 0xFFC0u) | 0x8000u | 0x0040u | 0x6000u)
      << "the thread's own modes are given back";
  ASSERT_NE(0.0f, products[0]) << "the host computes denormals by default";
  EXPECT_TRUE(equalArrays(products, gotProducts));
  EXPECT_TRUE(equalArrays(sums, gotSums));
}
#endif

namespace {

/// Runs `body` on a new thread with a stack of `stackBytes`, and waits for it.
void runOnSmallStack(size_t stackBytes, const std::function<void()> &body) {
  pthread_attr_t attributes;
  ASSERT_EQ(0, pthread_attr_init(&attributes));
  ASSERT_EQ(0, pthread_attr_setstacksize(&attributes, stackBytes));
  pthread_t thread;
  auto entry = [](void *argument) -> void * {
    (*static_cast<const std::function<void()> *>(argument))();
    return nullptr;
  };
  ASSERT_EQ(
      0, pthread_create(&thread, &attributes, entry, const_cast<std::function<void()> *>(&body)));
  pthread_attr_destroy(&attributes);
  pthread_join(thread, nullptr);
}

} // namespace

TEST_F(WaitingThreadTest, AThreadWithASmallStackWaitsForKernelsWithLargePrivateArrays) {
  // 256 KiB of private array per work-item, on a thread with 128 KiB of stack: run there, the
  // kernel would overflow it.
  Kernel kernel = buildKernel(R"(
    kernel void shuffle_sum(global const int *in, global int *out, int n) {
      int scratch[65536];
      int gid = get_global_id(0);
      for (int i = 0; i < 65536; ++i)
        scratch[i] = in[(i * 7 + gid) % n];
      int total = 0;
      for (int i = 0; i < 65536; i += 97)
        total += scratch[(i * 31 + gid) & 65535];
      out[gid] = total;
    })",
                              "shuffle_sum");
  ASSERT_NE(nullptr, kernel.get());
  const int n = 1000;
  std::vector<int> input = Random(5).values<int>(n);
  for (int &value : input)
    value &= 0xFFFF;
  const size_t global = 2;
  std::vector<int> expected(global);
  for (size_t gid = 0; gid < global; ++gid) {
    std::vector<int> scratch(65536);
    for (int i = 0; i < 65536; ++i)
      scratch[i] = input[(i * 7 + gid) % n];
    int total = 0;
    for (int i = 0; i < 65536; i += 97)
      total += scratch[(i * 31 + gid) & 65535];
    expected[gid] = total;
  }
  Mem in = bufferWith(input, CL_MEM_READ_ONLY);
  Mem out = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, in, out, n));
  std::vector<int> got(global, -1);
  cl_int status = CL_INVALID_VALUE;
  cl_command_queue queue = queue_;
  cl_kernel raw = kernel;
  runOnSmallStack(128 << 10, [&] {
    for (size_t groups : {size_t{1}, global}) {
      size_t local = 1;
      status = clEnqueueNDRangeKernel(queue, raw, 1, nullptr, &groups, &local, 0, nullptr, nullptr);
      if (status == CL_SUCCESS)
        status = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, groups * sizeof(int), got.data(), 0,
                                     nullptr, nullptr);
      if (status != CL_SUCCESS)
        return;
    }
  });
  ASSERT_CL_SUCCESS(status);
  EXPECT_TRUE(equalArrays(expected, got));
}

namespace {

struct CallbackRecord {
  std::mutex *heldAroundTheWait = nullptr;
  std::thread::id waitingThread;
  std::atomic<bool> ran{false};
  std::atomic<bool> ranOnTheWaitingThread{false};
};

void CL_CALLBACK recordCallback(cl_event, cl_int, void *userData) {
  auto *record = static_cast<CallbackRecord *>(userData);
  if (std::this_thread::get_id() == record->waitingThread) {
    record->ranOnTheWaitingThread.store(true); // taking the lock would deadlock
  } else {
    std::lock_guard lock(*record->heldAroundTheWait);
  }
  record->ran.store(true);
}

} // namespace

TEST_F(WaitingThreadTest, CallbacksDoNotRunOnTheThreadWaitingForTheirCommand) {
  SKIP_ON_POCL("runs a completion callback before clFinish returns: one that takes a lock held "
               "around clFinish hangs");
  Kernel kernel =
      buildKernel("kernel void one(global int *out) { out[get_global_id(0)] = 1; }", "one");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_WRITE_ONLY, sizeof(int));
  ASSERT_TRUE(setArgs(kernel, out));
  // (A CL_RUNNING callback that takes the lock would deadlock anywhere: the command cannot end
  // before its callback returns.)
  for (int round = 0; round < 20; ++round) {
    std::mutex applicationLock;
    CallbackRecord record;
    record.heldAroundTheWait = &applicationLock;
    record.waitingThread = std::this_thread::get_id();
    Event gate = userEvent();
    cl_event gateRaw = gate;
    const size_t global = 1;
    Event launched;
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 1,
                                             &gateRaw, launched.out()));
    ASSERT_CL_SUCCESS(clSetEventCallback(launched, CL_COMPLETE, recordCallback, &record));
    {
      std::lock_guard lock(applicationLock);
      ASSERT_CL_SUCCESS(clSetUserEventStatus(gate, CL_COMPLETE));
      ASSERT_CL_SUCCESS(clFinish(queue_));
    }
    ASSERT_TRUE(eventually([&] { return record.ran.load(); }));
    EXPECT_FALSE(record.ranOnTheWaitingThread.load()) << "round " << round;
  }
}

namespace {

/// A step the compiler cannot fold several of into one (as it can a plain linear congruence).
cl_uint scrambleStep(cl_uint x) {
  x = x * 1664525u + 1013904223u;
  return x ^ (x >> 13);
}

} // namespace

TEST_F(WaitingThreadTest, AThreadWaitingForOneQueueLeavesAnotherQueuesCommandToTheDevice) {
  // A long single-work-group command on a second queue, enqueued just before a short one on
  // the fixture's queue: waiting for the short one must not mean running the long one first.
  Kernel slow = buildKernel(R"(
    kernel void slow(global uint *out, uint rounds) {
      uint x = get_global_id(0) + 1;
      for (uint i = 0; i < rounds; ++i) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
      }
      out[get_global_id(0)] = x;
    })",
                            "slow");
  Kernel quick =
      buildKernel("kernel void quick(global int *out) { out[get_global_id(0)] = 7; }", "quick");
  ASSERT_NE(nullptr, slow.get());
  ASSERT_NE(nullptr, quick.get());
  cl_int error = CL_SUCCESS;
  Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Mem slowOut = createBuffer(CL_MEM_WRITE_ONLY, sizeof(cl_uint));
  Mem quickOut = createBuffer(CL_MEM_WRITE_ONLY, sizeof(cl_int));
  const cl_uint rounds = 100000000u; // a tenth of a second or more: far longer than the rest
  ASSERT_TRUE(setArgs(quick, quickOut));
  const size_t one = 1;
  // Each kernel once first, so that the launches below find their code compiled: the second
  // follows the first by well under a microsecond, while the device keeps the first back for
  // the thread that enqueued it (ThreadPool::kWaiterReservation).
  ASSERT_TRUE(setArgs(slow, slowOut, cl_uint{1}));
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(other, slow, 1, nullptr, &one, &one, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(other));
  ASSERT_TRUE(run1D(quick, 1, 1));
  ASSERT_TRUE(setArgs(slow, slowOut, rounds));
  Event slowDone;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(other, slow, 1, nullptr, &one, &one, 0, nullptr, slowDone.out()));
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue_, quick, 1, nullptr, &one, &one, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  cl_int slowStatus = CL_COMPLETE;
  ASSERT_CL_SUCCESS(clGetEventInfo(slowDone, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(slowStatus),
                                   &slowStatus, nullptr));
  EXPECT_GT(slowStatus, CL_COMPLETE) << "the other queue's command ran on the waiting thread";
  EXPECT_EQ(std::vector<int>{7}, read<int>(quickOut, 1));
  ASSERT_CL_SUCCESS(clFinish(other));
  cl_uint x = 1;
  for (cl_uint i = 0; i < rounds; ++i)
    x = scrambleStep(x);
  EXPECT_EQ(std::vector<cl_uint>{x}, read<cl_uint>(slowOut, 1));
}
