// cl_khr_command_buffer (version 0.9.8) on the device under test, through the functions the
// platform hands out by name: fills, copies and kernels recorded once and replayed many times,
// kernel arguments captured at record time, sync points and barriers, the command buffer and
// device queries, the errors, the event of a replay and its place among the commands of a queue,
// and a command buffer released while its replay is in flight. Every result is checked against
// the host. The fixture and the 0.9.8 declarations are in command_buffer_fixture.hpp.
#include "command_buffer_fixture.hpp"

#include <memory>

using namespace cltest;
using namespace cbtest;

// ---------------------------------------------------------------------------------------------
// Replays

TEST_F(CommandBufferTest, RecordedSequenceReplaysFromItsFillEachTime) {
  constexpr size_t kCount = 1024;
  constexpr int kSteps = 10;
  Mem a = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem out = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 3, kCount));
  for (int i = 0; i < kSteps; ++i)
    ASSERT_CL_SUCCESS(recordKernel(buffer, step, kCount));
  ASSERT_CL_SUCCESS(khr.copy(buffer, nullptr, nullptr, a, out, 0, 0, kCount * sizeof(int), 0,
                             nullptr, nullptr, nullptr));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  int value = 3;
  for (int i = 0; i < kSteps; ++i)
    value = value * 2 + 1;
  const std::vector<int> expected(kCount, value);
  for (int replayIndex = 0; replayIndex < 3; ++replayIndex) {
    ASSERT_CL_SUCCESS(replay(buffer));
    EXPECT_TRUE(equalArrays(expected, read<int>(out, kCount))) << "replay " << replayIndex;
    EXPECT_TRUE(equalArrays(expected, read<int>(a, kCount))) << "replay " << replayIndex;
    // What the replay left is overwritten: the next one starts from its own fill.
    write(a, std::vector<int>(kCount, -7));
    write(out, std::vector<int>(kCount, -7));
  }
  // Replays enqueued back to back on the in-order queue.
  for (int replayIndex = 0; replayIndex < 3; ++replayIndex)
    ASSERT_CL_SUCCESS(replay(buffer));
  EXPECT_TRUE(equalArrays(expected, read<int>(out, kCount)));
}

// Launches of one work-group, launches spread over every worker, and copies, interleaved: a
// device may run small steps and large ones differently (the CPU runs a one-chunk launch on the
// worker that ran the step before it).
TEST_F(CommandBufferTest, SmallAndLargeLaunchesAndCopiesInterleave) {
  constexpr size_t kLarge = size_t{1} << 20, kSmall = 64;
  Mem a = createBuffer(CL_MEM_READ_WRITE, kLarge * sizeof(int));
  Mem b = createBuffer(CL_MEM_READ_WRITE, kLarge * sizeof(int));
  Kernel addToA = kernel("add"), addToB = kernel("add"), stepA = kernel("step");
  ASSERT_TRUE(setArgs(addToA, a, 1));
  ASSERT_TRUE(setArgs(addToB, b, 2));
  ASSERT_TRUE(setArgs(stepA, a));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 0, kLarge));
  for (int round = 0; round < 4; ++round) {
    ASSERT_CL_SUCCESS(recordKernel(buffer, addToA, kLarge));
    ASSERT_CL_SUCCESS(recordKernel(buffer, stepA, kSmall));
  }
  ASSERT_CL_SUCCESS(khr.copy(buffer, nullptr, nullptr, a, b, 0, 0, kLarge * sizeof(int), 0, nullptr,
                             nullptr, nullptr));
  ASSERT_CL_SUCCESS(recordKernel(buffer, addToB, kLarge));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  std::vector<int> expectedA(kLarge, 0);
  for (int round = 0; round < 4; ++round) {
    for (int &value : expectedA)
      value += 1;
    for (size_t i = 0; i < kSmall; ++i)
      expectedA[i] = expectedA[i] * 2 + 1;
  }
  std::vector<int> expectedB = expectedA;
  for (int &value : expectedB)
    value += 2;
  for (int replayIndex = 0; replayIndex < 3; ++replayIndex) {
    ASSERT_CL_SUCCESS(replay(buffer));
    EXPECT_TRUE(equalArrays(expectedA, read<int>(a, kLarge))) << "replay " << replayIndex;
    EXPECT_TRUE(equalArrays(expectedB, read<int>(b, kLarge))) << "replay " << replayIndex;
  }
}

TEST_F(CommandBufferTest, KernelArgumentsAreCapturedWhenRecorded) {
  constexpr size_t kCount = 256;
  std::vector<int> initial(kCount);
  for (size_t i = 0; i < kCount; ++i)
    initial[i] = static_cast<int>(i);
  Mem a = bufferWith(initial);
  Mem other = bufferWith(std::vector<int>(kCount, 0));
  Kernel add = kernel("add");
  CommandBuffer buffer = create();
  ASSERT_TRUE(setArgs(add, a, 5));
  ASSERT_CL_SUCCESS(recordKernel(buffer, add, kCount));
  // "If kernel is recorded to a following clCommandNDRangeKernelKHR command however, then that
  // command will capture the updated state of kernel."
  ASSERT_TRUE(setArgs(add, a, 7));
  ASSERT_CL_SUCCESS(recordKernel(buffer, add, kCount));
  // "Any changes to kernel after calling clCommandNDRangeKernelKHR, such as with clSetKernelArg
  // ..., have no effect on the recorded command."
  ASSERT_TRUE(setArgs(add, other, 100));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_CL_SUCCESS(replay(buffer));

  std::vector<int> expected = initial;
  for (int &value : expected)
    value += 12;
  EXPECT_TRUE(equalArrays(expected, read<int>(a, kCount)));
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 0), read<int>(other, kCount)));

  // The kernel's own arguments are the new ones for ordinary launches, and replays keep theirs.
  ASSERT_TRUE(run1D(add, kCount));
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 100), read<int>(other, kCount)));
  ASSERT_CL_SUCCESS(replay(buffer));
  for (int &value : expected)
    value += 12;
  EXPECT_TRUE(equalArrays(expected, read<int>(a, kCount)));
}

TEST_F(CommandBufferTest, SyncPointsOrderCommands) {
  constexpr size_t kCount = 4096;
  // On an out-of-order queue, where the device has one for replays, only the sync points order
  // the commands.
  Queue outOfOrder = outOfOrderQueue();
  cl_command_queue queue = outOfOrder.get() != nullptr ? outOfOrder.get() : queue_.get();
  Mem a = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem b = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem total = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem out = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Kernel produce = kernel("produce");
  Kernel sum = kernel("sum");
  ASSERT_TRUE(setArgs(sum, a, b, total));
  CommandBuffer buffer = create(queue);

  // Two independent kernels, then one that reads what both wrote.
  cl_sync_point_khr producedA = 0, producedB = 0, summed = 0, overwritten = 0, barrier = 0;
  ASSERT_TRUE(setArgs(produce, a, 3));
  ASSERT_CL_SUCCESS(recordKernel(buffer, produce, kCount, {}, &producedA));
  ASSERT_TRUE(setArgs(produce, b, 5));
  ASSERT_CL_SUCCESS(recordKernel(buffer, produce, kCount, {}, &producedB));
  EXPECT_NE(producedA, producedB);
  ASSERT_CL_SUCCESS(recordKernel(buffer, sum, kCount, {producedA, producedB}, &summed));
  // A kernel that overwrites `a` only after `sum` has read it.
  ASSERT_TRUE(setArgs(produce, a, 7));
  ASSERT_CL_SUCCESS(recordKernel(buffer, produce, kCount, {summed}, &overwritten));
  // A barrier after both, and a copy of the sum after the barrier.
  std::vector<cl_sync_point_khr> beforeBarrier = {summed, overwritten};
  ASSERT_CL_SUCCESS(
      khr.barrier(buffer, nullptr, nullptr, 2, beforeBarrier.data(), &barrier, nullptr));
  ASSERT_CL_SUCCESS(khr.copy(buffer, nullptr, nullptr, total, out, 0, 0, kCount * sizeof(int), 1,
                             &barrier, nullptr, nullptr));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  Event done;
  ASSERT_CL_SUCCESS(replay(buffer, {}, done.out()));
  ASSERT_CL_SUCCESS(clWaitForEvents(1, done.ptr()));
  std::vector<int> expectedOut(kCount), expectedA(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    expectedOut[i] = static_cast<int>(i) * 8;
    expectedA[i] = static_cast<int>(i) * 7;
  }
  EXPECT_TRUE(equalArrays(expectedOut, read<int>(out, kCount)));
  EXPECT_TRUE(equalArrays(expectedOut, read<int>(total, kCount)));
  EXPECT_TRUE(equalArrays(expectedA, read<int>(a, kCount)));
}

TEST_F(CommandBufferTest, CopyBufferRectCopiesTheRegion) {
  constexpr size_t kSourceRow = 16, kSourceRows = 8, kTargetRow = 8, kTargetRows = 8;
  std::vector<int> source(kSourceRow * kSourceRows);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = static_cast<int>(i) + 1000;
  Mem from = bufferWith(source);
  Mem to = bufferWith(std::vector<int>(kTargetRow * kTargetRows, -1));
  // Four ints by three rows, from (2, 1) of the source to (1, 4) of the target (x in bytes).
  const size_t sourceOrigin[3] = {2 * sizeof(int), 1, 0};
  const size_t targetOrigin[3] = {1 * sizeof(int), 4, 0};
  const size_t region[3] = {4 * sizeof(int), 3, 1};
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(khr.copyRect(buffer, nullptr, nullptr, from, to, sourceOrigin, targetOrigin,
                                 region, kSourceRow * sizeof(int), 0, kTargetRow * sizeof(int), 0,
                                 0, nullptr, nullptr, nullptr));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_CL_SUCCESS(replay(buffer));

  std::vector<int> expected(kTargetRow * kTargetRows, -1);
  for (size_t row = 0; row < 3; ++row)
    for (size_t column = 0; column < 4; ++column)
      expected[(4 + row) * kTargetRow + 1 + column] = source[(1 + row) * kSourceRow + 2 + column];
  EXPECT_TRUE(equalArrays(expected, read<int>(to, expected.size())));
}

TEST_F(CommandBufferTest, SvmFillAndCopy) {
  auto svm = deviceInfo<cl_device_svm_capabilities>(device_, CL_DEVICE_SVM_CAPABILITIES);
  if ((svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
    GTEST_SKIP() << "the device has no shared virtual memory";
  ASSERT_TRUE(khr.svmMemcpy != nullptr) << "clCommandSVMMemcpyKHR";
  ASSERT_TRUE(khr.svmMemFill != nullptr) << "clCommandSVMMemFillKHR";
  constexpr size_t kCount = 1024;
  const size_t bytes = kCount * sizeof(int);
  auto svmFree = [&](void *pointer) { clSVMFree(context_, pointer); };
  using Allocation = std::unique_ptr<void, decltype(svmFree)>;
  Allocation source(clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes, 0), svmFree);
  Allocation target(clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes, 0), svmFree);
  ASSERT_NE(nullptr, source.get());
  ASSERT_NE(nullptr, target.get());

  // The first half of `source` filled with one pattern, the second with another, all copied.
  const cl_int first = 0x12345678, second = -5;
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(khr.svmMemFill(buffer, nullptr, nullptr, source.get(), &first, sizeof first,
                                   bytes / 2, 0, nullptr, nullptr, nullptr));
  ASSERT_CL_SUCCESS(khr.svmMemFill(buffer, nullptr, nullptr,
                                   static_cast<char *>(source.get()) + bytes / 2, &second,
                                   sizeof second, bytes / 2, 0, nullptr, nullptr, nullptr));
  ASSERT_CL_SUCCESS(khr.svmMemcpy(buffer, nullptr, nullptr, target.get(), source.get(), bytes, 0,
                                  nullptr, nullptr, nullptr));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_CL_SUCCESS(replay(buffer));

  std::vector<int> result(kCount, 0);
  ASSERT_CL_SUCCESS(
      clEnqueueSVMMemcpy(queue_, CL_TRUE, result.data(), target.get(), bytes, 0, nullptr, nullptr));
  std::vector<int> expected(kCount, first);
  std::fill(expected.begin() + kCount / 2, expected.end(), second);
  EXPECT_TRUE(equalArrays(expected, result));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(CommandBufferTest, HundredKernelsReplayedMatchEnqueueingThemOneByOne) {
  constexpr size_t kCount = 256;
  constexpr cl_uint kKernels = 100;
  constexpr int kReplays = 20;
  std::vector<cl_uint> initial(kCount);
  for (size_t i = 0; i < kCount; ++i)
    initial[i] = static_cast<cl_uint>(i * 2654435761u);
  Mem recorded = bufferWith(initial);
  Mem direct = bufferWith(initial);
  Kernel kernelMix = kernel("mix");
  CommandBuffer buffer = create();
  for (cl_uint k = 0; k < kKernels; ++k) {
    ASSERT_TRUE(setArgs(kernelMix, recorded, k));
    ASSERT_CL_SUCCESS(recordKernel(buffer, kernelMix, kCount));
  }
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  std::vector<cl_uint> expected = initial;
  for (int replayIndex = 0; replayIndex < kReplays; ++replayIndex) {
    ASSERT_CL_SUCCESS(replay(buffer));
    for (cl_uint k = 0; k < kKernels; ++k) {
      ASSERT_TRUE(setArgs(kernelMix, direct, k));
      ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue_, kernelMix, 1, nullptr, &kCount, nullptr, 0,
                                               nullptr, nullptr));
      mix(expected, k);
    }
  }
  std::vector<cl_uint> oneByOne = read<cl_uint>(direct, kCount);
  EXPECT_TRUE(equalArrays(expected, oneByOne));
  EXPECT_TRUE(equalArrays(oneByOne, read<cl_uint>(recorded, kCount)));
}

// ---------------------------------------------------------------------------------------------
// Events and queues

TEST_F(CommandBufferTest, ReplayEventHasTheCommandBufferTypeAndCompletes) {
  constexpr size_t kCount = 64;
  Mem a = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 42, kCount));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  Event done;
  ASSERT_CL_SUCCESS(replay(buffer, {}, done.out()));
  ASSERT_NE(nullptr, done.get());
  EXPECT_EQ(cl_command_type{CL_COMMAND_COMMAND_BUFFER_KHR},
            eventInfo<cl_command_type>(done, CL_EVENT_COMMAND_TYPE));
  EXPECT_EQ(queue_.get(), eventInfo<cl_command_queue>(done, CL_EVENT_COMMAND_QUEUE));
  EXPECT_EQ(context_.get(), eventInfo<cl_context>(done, CL_EVENT_CONTEXT));
  ASSERT_CL_SUCCESS(clWaitForEvents(1, done.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(done));
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 42), read<int>(a, kCount)));
}

TEST_F(CommandBufferTest, UserEventHoldsTheReplayBack) {
  constexpr size_t kCount = 256;
  Mem a = bufferWith(std::vector<int>(kCount, 1));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordKernel(buffer, step, kCount));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  Gate gate(context_);
  Event first, second;
  ASSERT_CL_SUCCESS(replay(buffer, {gate}, first.out()));
  // Version 0.9.8 has no pending state: a command buffer whose replay waits can be enqueued again
  // (the in-order queue orders the two replays, which is not simultaneous use).
  EXPECT_EQ(cl_command_buffer_state_khr{CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR}, state(buffer));
  ASSERT_CL_SUCCESS(replay(buffer, {}, second.out()));
  EXPECT_TRUE(staysFalse([&] { return eventStatus(first) <= CL_COMPLETE; }))
      << "the replay ran before its user event completed";
  // Read through another queue: the fixture's waits behind the replays.
  cl_int error = CL_SUCCESS;
  Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  std::vector<int> before(kCount, 0);
  ASSERT_CL_SUCCESS(clEnqueueReadBuffer(other, a, CL_TRUE, 0, kCount * sizeof(int), before.data(),
                                        0, nullptr, nullptr));
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 1), before)) << "the buffer changed early";
  EXPECT_NE(CL_COMPLETE, eventStatus(second));

  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, second.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(first));
  // 1 -> 3 -> 7.
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 7), read<int>(a, kCount)));
}

TEST_F(CommandBufferTest, InOrderQueueOrdersTheReplayBetweenAWriteAndARead) {
  constexpr size_t kCount = 512;
  Mem a = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordKernel(buffer, step, kCount));
  ASSERT_CL_SUCCESS(recordKernel(buffer, step, kCount));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  std::vector<int> data(kCount), result(kCount, -1);
  for (size_t i = 0; i < kCount; ++i)
    data[i] = static_cast<int>(i) - 100;
  // The write waits for a user event; the replay and the read wait for it in queue order.
  Gate gate(context_);
  Event replayed, readBack;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, a, CL_FALSE, 0, kCount * sizeof(int), data.data(),
                                         1, gate.list(), nullptr));
  ASSERT_CL_SUCCESS(replay(buffer, {}, replayed.out()));
  ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue_, a, CL_FALSE, 0, kCount * sizeof(int), result.data(),
                                        0, nullptr, readBack.out()));
  EXPECT_TRUE(staysFalse([&] { return eventStatus(replayed) <= CL_COMPLETE; }))
      << "the replay ran before the write it follows";
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, readBack.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(replayed));
  std::vector<int> expected = data;
  for (int &value : expected)
    value = (value * 2 + 1) * 2 + 1;
  EXPECT_TRUE(equalArrays(expected, result));
}

// What the host writes through a map between replays is what the next replay reads: a device
// that moves memory to the host for a map must bring it back before a replay, as before a kernel.
TEST_F(CommandBufferTest, HostWritesThroughAMapAreSeenByTheNextReplay) {
  constexpr size_t kCount = size_t{1} << 16;
  Mem a = bufferWith(std::vector<int>(kCount, 5));
  Kernel step = kernel("step"), add = kernel("add");
  ASSERT_TRUE(setArgs(step, a));
  ASSERT_TRUE(setArgs(add, a, 3));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordKernel(buffer, step, kCount));
  ASSERT_CL_SUCCESS(recordKernel(buffer, add, kCount));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  for (int round = 0; round < 3; ++round) {
    ASSERT_CL_SUCCESS(replay(buffer));
    cl_int error = CL_SUCCESS;
    auto *mapped =
        static_cast<int *>(clEnqueueMapBuffer(queue_, a, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                              kCount * sizeof(int), 0, nullptr, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    int expectedAfterReplay = round == 0 ? 5 * 2 + 1 + 3 : (round * 10) * 2 + 1 + 3;
    EXPECT_EQ(expectedAfterReplay, mapped[0]) << "round " << round;
    EXPECT_EQ(expectedAfterReplay, mapped[kCount - 1]) << "round " << round;
    for (size_t i = 0; i < kCount; ++i)
      mapped[i] = (round + 1) * 10;
    ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, a, mapped, 0, nullptr, nullptr));
  }
  ASSERT_CL_SUCCESS(replay(buffer));
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 30 * 2 + 1 + 3), read<int>(a, kCount)));
}

TEST_F(CommandBufferTest, ReleasingDuringAReplayIsSafe) {
  constexpr size_t kCount = 1024;
  Mem a = bufferWith(std::vector<int>(kCount, 0));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  Gate gate(context_);
  Event done;
  {
    CommandBuffer buffer = create();
    for (int i = 0; i < 4; ++i)
      ASSERT_CL_SUCCESS(recordKernel(buffer, step, kCount));
    ASSERT_CL_SUCCESS(khr.finalize(buffer));
    ASSERT_CL_SUCCESS(replay(buffer, {gate}));
    ASSERT_CL_SUCCESS(replay(buffer, {}, done.out()));
    // The last reference goes while both replays wait for the user event.
  }
  EXPECT_NE(CL_COMPLETE, eventStatus(done));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, done.ptr()));
  // Eight steps from 0: 2^8 - 1.
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 255), read<int>(a, kCount)));
}

// ---------------------------------------------------------------------------------------------
// Queries

TEST_F(CommandBufferTest, QueriesReportQueuesContextAndReferenceCount) {
  CommandBuffer buffer = create();
  EXPECT_EQ(1u, bufferInfo<cl_uint>(buffer, CL_COMMAND_BUFFER_NUM_QUEUES_KHR));
  auto queues = queryArray<cl_command_queue>([&](size_t s, void *v, size_t *r) {
    return khr.info(buffer, CL_COMMAND_BUFFER_QUEUES_KHR, s, v, r);
  });
  EXPECT_EQ(std::vector<cl_command_queue>{queue_.get()}, queues);
  EXPECT_EQ(context_.get(), bufferInfo<cl_context>(buffer, CL_COMMAND_BUFFER_CONTEXT_KHR));

  cl_uint initial = bufferInfo<cl_uint>(buffer, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR);
  EXPECT_GE(initial, 1u);
  ASSERT_CL_SUCCESS(khr.retain(buffer));
  ASSERT_CL_SUCCESS(khr.retain(buffer));
  EXPECT_EQ(initial + 2, bufferInfo<cl_uint>(buffer, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR));
  ASSERT_CL_SUCCESS(khr.release(buffer));
  EXPECT_EQ(initial + 1, bufferInfo<cl_uint>(buffer, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR));
  ASSERT_CL_SUCCESS(khr.release(buffer));
  EXPECT_EQ(initial, bufferInfo<cl_uint>(buffer, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR));
}

TEST_F(CommandBufferTest, StateGoesFromRecordingToExecutable) {
  Mem a = createBuffer(CL_MEM_READ_WRITE, 16 * sizeof(int));
  CommandBuffer buffer = create();
  EXPECT_EQ(cl_command_buffer_state_khr{CL_COMMAND_BUFFER_STATE_RECORDING_KHR}, state(buffer));
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 1, 16));
  EXPECT_EQ(cl_command_buffer_state_khr{CL_COMMAND_BUFFER_STATE_RECORDING_KHR}, state(buffer));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  EXPECT_EQ(cl_command_buffer_state_khr{CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR}, state(buffer));
  ASSERT_CL_SUCCESS(replay(buffer));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(cl_command_buffer_state_khr{CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR}, state(buffer));
}

TEST_F(CommandBufferTest, PropertiesArrayIsReportedAsGiven) {
  auto properties = [&](cl_command_buffer_khr buffer) {
    return queryArray<cl_command_buffer_properties_khr>([&](size_t s, void *v, size_t *r) {
      return khr.info(buffer, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, s, v, r);
    });
  };
  const std::vector<cl_command_buffer_properties_khr> given = {CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0};
  CommandBuffer withProperties = create(nullptr, given.data());
  EXPECT_EQ(given, properties(withProperties));
  // "If the properties argument ... was NULL, the implementation may return either a
  // param_value_size_ret of 0 ..., or ... a property value of 0".
  CommandBuffer withoutProperties = create();
  auto reported = properties(withoutProperties);
  EXPECT_TRUE(reported.empty() || reported == std::vector<cl_command_buffer_properties_khr>{0})
      << reported.size() << " properties reported";
}

TEST_F(CommandBufferTest, DeviceQueries) {
  auto capabilities = deviceInfo<cl_device_command_buffer_capabilities_khr>(
      device_, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR);
  // The bits of 0.9.8: printf and device-side enqueue, simultaneous use with mutable dispatch,
  // multiple queues with multi-device (no longer CL_COMMAND_BUFFER_CAPABILITY_OUT_OF_ORDER_KHR).
  cl_device_command_buffer_capabilities_khr known =
      CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
      CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR;
  if (hasExtension(device_, "cl_khr_command_buffer_mutable_dispatch"))
    known |= CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;
  if (hasExtension(device_, "cl_khr_command_buffer_multi_device"))
    known |= cl_device_command_buffer_capabilities_khr{1} << 4;
  EXPECT_EQ(0u, capabilities & ~known) << "unknown capability bits " << capabilities;

  // "The mandated minimum capability is: CL_QUEUE_PROFILING_ENABLE."
  EXPECT_NE(0u, supported_ & CL_QUEUE_PROFILING_ENABLE);
  // Replays need a queue that has the required properties and none but the supported ones.
  EXPECT_EQ(required_, required_ & supported_);
  auto host = deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
  EXPECT_EQ(required_, required_ & host);
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST_F(CommandBufferTest, RecordingIntoAFinalizedBufferIsInvalidOperation) {
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Mem b = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 1, 64));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, recordFill(buffer, a, 1, 64));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, recordKernel(buffer, step, 64));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  khr.copy(buffer, nullptr, nullptr, a, b, 0, 0, 64, 0, nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  khr.barrier(buffer, nullptr, nullptr, 0, nullptr, nullptr, nullptr));
  // "CL_INVALID_OPERATION if command_buffer is not in the Recording state."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, khr.finalize(buffer));
}

TEST_F(CommandBufferTest, EnqueueingAnUnfinalizedBufferIsInvalidOperation) {
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  CommandBuffer buffer = create();
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, replay(buffer));
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 1, 64));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, replay(buffer));
  // Recording goes on after the failed enqueues.
  ASSERT_CL_SUCCESS(recordFill(buffer, a, 2, 64));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_CL_SUCCESS(replay(buffer));
  EXPECT_TRUE(equalArrays(std::vector<int>(64, 2), read<int>(a, 64)));
}

TEST_F(CommandBufferTest, NullCommandBufferIsInvalidCommandBuffer) {
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, khr.finalize(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, khr.retain(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, khr.release(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, replay(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, khr.info(nullptr, CL_COMMAND_BUFFER_NUM_QUEUES_KHR,
                                                          sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, recordFill(nullptr, a, 1, 64));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, recordKernel(nullptr, step, 64));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, khr.copy(nullptr, nullptr, nullptr, a, a, 0, 128,
                                                          64, 0, nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR,
                  khr.barrier(nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr));
}

TEST_F(CommandBufferTest, InvalidSyncPointWaitListsAreRejected) {
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  const cl_int pattern = 0;
  cl_sync_point_khr filled = 0;
  ASSERT_CL_SUCCESS(khr.fill(buffer, nullptr, nullptr, a, &pattern, sizeof pattern, 0,
                             64 * sizeof(int), 0, nullptr, &filled, nullptr));
  // `filled` is the only sync point of the command buffer.
  const cl_sync_point_khr missing = filled + 1;
  EXPECT_CL_ERROR(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, recordKernel(buffer, step, 64, {missing}));
  EXPECT_CL_ERROR(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                  recordKernel(buffer, step, 64, {filled, missing}));
  EXPECT_CL_ERROR(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                  khr.barrier(buffer, nullptr, nullptr, 1, &missing, nullptr, nullptr));
  // A null list with a count, and a list with none.
  size_t count = 64;
  EXPECT_CL_ERROR(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                  khr.ndrange(buffer, nullptr, nullptr, step, 1, nullptr, &count, nullptr, 1,
                              nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                  khr.ndrange(buffer, nullptr, nullptr, step, 1, nullptr, &count, nullptr, 0,
                              &filled, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                  khr.barrier(buffer, nullptr, nullptr, 2, nullptr, nullptr, nullptr));
  // The valid sync point still works.
  EXPECT_CL_SUCCESS(recordKernel(buffer, step, 64, {filled}));
}

TEST_F(CommandBufferTest, CommandQueueArgumentMustBeNull) {
  if (hasExtension(device_, "cl_khr_command_buffer_multi_device"))
    GTEST_SKIP() << "with cl_khr_command_buffer_multi_device a queue may be named";
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Mem b = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Kernel step = kernel("step");
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  // "CL_INVALID_COMMAND_QUEUE if the cl_khr_command_buffer_multi_device extension is not
  // supported and command_queue is not NULL" (even the queue the buffer was created with).
  size_t count = 64;
  cl_int pattern = 0;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  khr.ndrange(buffer, queue_, nullptr, step, 1, nullptr, &count, nullptr, 0,
                              nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  khr.fill(buffer, queue_, nullptr, a, &pattern, sizeof pattern, 0,
                           64 * sizeof(int), 0, nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  khr.copy(buffer, queue_, nullptr, a, b, 0, 0, 64, 0, nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  khr.barrier(buffer, queue_, nullptr, 0, nullptr, nullptr, nullptr));
}

TEST_F(CommandBufferTest, CreateNeedsOneQueue) {
  cl_int error = CL_SUCCESS;
  cl_command_queue queues[2] = {queue_, queue_};
  // "CL_INVALID_VALUE if the cl_khr_command_buffer_multi_device extension is supported and
  // num_queues is zero, or if [it] is not supported and num_queues is not one."
  CommandBuffer none(khr.create(0, queues, nullptr, &error));
  EXPECT_EQ(nullptr, none.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  // "CL_INVALID_VALUE if queues is NULL."
  CommandBuffer nullQueues(khr.create(1, nullptr, nullptr, &error));
  EXPECT_EQ(nullptr, nullQueues.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  if (!hasExtension(device_, "cl_khr_command_buffer_multi_device")) {
    CommandBuffer two(khr.create(2, queues, nullptr, &error));
    EXPECT_EQ(nullptr, two.get());
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  }
  cl_command_queue invalid = nullptr;
  CommandBuffer invalidQueue(khr.create(1, &invalid, nullptr, &error));
  EXPECT_EQ(nullptr, invalidQueue.get());
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, error);
}

TEST_F(CommandBufferTest, InvalidPropertiesAreInvalidValue) {
  cl_int error = CL_SUCCESS;
  cl_command_queue queue = queue_;
  const cl_command_buffer_properties_khr unknown[] = {0x7FFF, 1, 0};
  CommandBuffer rejected(khr.create(1, &queue, unknown, &error));
  EXPECT_EQ(nullptr, rejected.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  const cl_command_buffer_properties_khr repeated[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0,
                                                       CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0};
  CommandBuffer twice(khr.create(1, &queue, repeated, &error));
  EXPECT_EQ(nullptr, twice.get());
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);

  // The base extension defines no command properties: an empty list is valid, any name is not.
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  CommandBuffer buffer = create();
  const cl_command_properties_khr empty[] = {0};
  const cl_command_properties_khr invalid[] = {0x7FFF, 1, 0};
  const cl_int pattern = 9;
  EXPECT_CL_SUCCESS(khr.fill(buffer, nullptr, empty, a, &pattern, sizeof pattern, 0,
                             64 * sizeof(int), 0, nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, khr.fill(buffer, nullptr, invalid, a, &pattern, sizeof pattern,
                                             0, 64 * sizeof(int), 0, nullptr, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  khr.barrier(buffer, nullptr, invalid, 0, nullptr, nullptr, nullptr));
}

TEST_F(CommandBufferTest, KernelWithUnsetArgumentsIsInvalidKernelArgs) {
  Kernel add = kernel("add");
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  CommandBuffer buffer = create();
  EXPECT_CL_ERROR(CL_INVALID_KERNEL_ARGS, recordKernel(buffer, add, 64));
  ASSERT_CL_SUCCESS(setArg(add, 0, a));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL_ARGS, recordKernel(buffer, add, 64));
  ASSERT_CL_SUCCESS(setArg(add, 1, 1));
  EXPECT_CL_SUCCESS(recordKernel(buffer, add, 64));
}

// CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR without device-side enqueue: a kernel that enqueues
// kernels cannot be recorded.
TEST_F(CommandBufferTest, KernelThatEnqueuesKernelsIsInvalidOperationWithoutTheCapability) {
  auto capabilities = deviceInfo<cl_device_command_buffer_capabilities_khr>(
      device_, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR);
  auto enqueue = deviceInfo<cl_device_device_enqueue_capabilities>(
      device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
  if ((capabilities & CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR) ||
      !(enqueue & CL_DEVICE_QUEUE_SUPPORTED))
    GTEST_SKIP() << "the device records such kernels, or has no device-side enqueue";
  Program program = build(R"(
    kernel void parent(global int *a) {
      enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),
                     ^{ a[0] = 1; });
    })",
                          "-cl-std=CL2.0");
  ASSERT_TRUE(program);
  Kernel parent = createKernel(program, "parent");
  Mem a = createBuffer(CL_MEM_READ_WRITE, sizeof(int));
  ASSERT_TRUE(setArgs(parent, a));
  CommandBuffer buffer = create();
  EXPECT_EQ(CL_INVALID_OPERATION, recordKernel(buffer, parent, 1));
}

TEST_F(CommandBufferTest, MutableHandleWithoutMutableDispatchIsInvalidValue) {
  Kernel step = kernel("step");
  Mem a = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  ASSERT_TRUE(setArgs(step, a));
  CommandBuffer buffer = create();
  cl_mutable_command_khr handle = nullptr;
  // The barrier's mutable_handle "is unused, and must be NULL".
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  khr.barrier(buffer, nullptr, nullptr, 0, nullptr, nullptr, &handle));
  if (hasExtension(device_, "cl_khr_command_buffer_mutable_dispatch"))
    GTEST_SKIP() << "with cl_khr_command_buffer_mutable_dispatch, kernel commands are mutable";
  size_t count = 64;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, khr.ndrange(buffer, nullptr, nullptr, step, 1, nullptr, &count,
                                                nullptr, 0, nullptr, nullptr, &handle));
}

TEST_F(CommandBufferTest, InfoErrors) {
  CommandBuffer buffer = create();
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, khr.info(buffer, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, khr.info(buffer, CL_COMMAND_BUFFER_NUM_QUEUES_KHR,
                                             sizeof value - 1, &value, nullptr));
  cl_context context = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, khr.info(buffer, CL_COMMAND_BUFFER_CONTEXT_KHR,
                                             sizeof context - 1, &context, nullptr));
}
