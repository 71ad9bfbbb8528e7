// Device-side enqueue (OpenCL C 3.0 feature __opencl_c_device_enqueue): device queues and
// their API, enqueue_kernel in each form (events, __local pointer arguments to the block,
// ndranges of 1 to 3 dimensions), enqueue_marker, device events, nested and recursive enqueues,
// the block queries, and that a parent's event completes only after its children. Every result
// is checked against what the host computes.
#include "cl_test.hpp"

#include <numeric>

using namespace cltest;

namespace {

constexpr const char *kOpenCLC30 = "-cl-std=CL3.0";

// What enqueue_kernel returns (OpenCL C's CLK_* codes; the host headers do not define them).
constexpr int kClkSuccess = 0;
constexpr int kClkInvalidEventWaitList = -57;
constexpr int kClkInvalidNDRange = -160;

class DeviceEnqueueTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    auto capabilities = deviceInfo<cl_device_device_enqueue_capabilities>(
        device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
    if (!(capabilities & CL_DEVICE_QUEUE_SUPPORTED))
      GTEST_SKIP() << "the device has no device-side enqueue";
    deviceQueue_ = makeDeviceQueue(CL_QUEUE_ON_DEVICE_DEFAULT);
    ASSERT_NE(deviceQueue_.get(), nullptr);
  }

  Queue makeDeviceQueue(cl_command_queue_properties extra, cl_uint size = 0) {
    cl_queue_properties properties[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | extra, 0,
        0, 0};
    if (size != 0) {
      properties[2] = CL_QUEUE_SIZE;
      properties[3] = size;
    }
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, properties, &error));
    EXPECT_CL_SUCCESS(error);
    return queue;
  }

  Queue deviceQueue_;
};

TEST_F(DeviceEnqueueTest, DeviceReportsItsQueues) {
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE), 16u * 1024);
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE), 256u * 1024);
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_ON_DEVICE_QUEUES), 1u);
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_ON_DEVICE_EVENTS), 1024u);
  auto properties =
      deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES);
  EXPECT_TRUE(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  EXPECT_TRUE(hasOpenClCFeature(device_, "__opencl_c_device_enqueue"));
}

TEST_F(DeviceEnqueueTest, DeviceQueuesFollowTheirRules) {
  cl_int error = CL_SUCCESS;
  cl_queue_properties inOrder[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(context_, device_, inOrder, &error), nullptr);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  cl_uint max = deviceInfo<cl_uint>(device_, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE);
  cl_queue_properties tooLarge[] = {CL_QUEUE_PROPERTIES,
                                    CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                    CL_QUEUE_SIZE, cl_queue_properties(max) + 1, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(context_, device_, tooLarge, &error), nullptr);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  cl_queue_properties hostSized[] = {CL_QUEUE_SIZE, 1024, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(context_, device_, hostSized, &error), nullptr);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);

  // The default device queue is one per device: asking again gives it again.
  Queue again = makeDeviceQueue(CL_QUEUE_ON_DEVICE_DEFAULT);
  EXPECT_EQ(again.get(), deviceQueue_.get());
  EXPECT_EQ(queueInfo<cl_command_queue>(queue_, CL_QUEUE_DEVICE_DEFAULT), deviceQueue_.get());
  EXPECT_EQ(queueInfo<cl_uint>(deviceQueue_, CL_QUEUE_SIZE),
            deviceInfo<cl_uint>(device_, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clGetCommandQueueInfo(queue_, CL_QUEUE_SIZE, sizeof(cl_uint), nullptr, nullptr));

  Queue sized = makeDeviceQueue(0, 64 * 1024);
  EXPECT_EQ(queueInfo<cl_uint>(sized, CL_QUEUE_SIZE), 64u * 1024);
  EXPECT_CL_SUCCESS(clSetDefaultDeviceCommandQueue(context_, device_, sized));
  EXPECT_EQ(queueInfo<cl_command_queue>(queue_, CL_QUEUE_DEVICE_DEFAULT), sized.get());
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clSetDefaultDeviceCommandQueue(context_, device_, queue_));

  // Only kernels enqueue on a device queue.
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  int value = 0;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clEnqueueWriteBuffer(deviceQueue_, buffer, CL_TRUE, 0, sizeof value, &value, 0,
                                       nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE, clFinish(deviceQueue_));
}

TEST_F(DeviceEnqueueTest, ChildWritesWhatItsBlockCaptured) {
  Kernel kernel = buildKernel(R"(
kernel void parent(global int *out, int scale, queue_t queue) {
  if (get_global_id(0) == 0) {
    int status = enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(1000, 10),
                                ^{ out[get_global_id(0)] = scale * (int)get_global_id(0); });
    out[1000] = status;
  }
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem out = createBuffer(CL_MEM_READ_WRITE, 1001 * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, out, 7, deviceQueue_));
  ASSERT_TRUE(run1D(kernel, 64));
  std::vector<int> result = read<int>(out, 1001);
  std::vector<int> expected(1001);
  for (int i = 0; i < 1000; ++i)
    expected[i] = 7 * i;
  expected[1000] = kClkSuccess;
  EXPECT_TRUE(equalArrays(expected, result));
}

TEST_F(DeviceEnqueueTest, BlockKernelsAreNotThePrograms) {
  Program program = build(R"(
kernel void parent(global int *out) {
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),
                 ^{ out[0] = 1; });
})",
                          kOpenCLC30);
  ASSERT_NE(program.get(), nullptr);
  EXPECT_EQ(programInfo<size_t>(program, CL_PROGRAM_NUM_KERNELS), 1u);
  EXPECT_EQ(queryString([&](size_t size, void *value, size_t *ret) {
              return clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, value, ret);
            }),
            "parent");
  cl_uint count = 0;
  EXPECT_CL_SUCCESS(clCreateKernelsInProgram(program, 0, nullptr, &count));
  EXPECT_EQ(count, 1u);
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(clCreateKernel(program, "__parent_block_invoke_kernel", &error), nullptr);
  EXPECT_CL_ERROR(CL_INVALID_KERNEL_NAME, error);
}

TEST_F(DeviceEnqueueTest, EventsOrderChildrenAndMarkers) {
  // Three children in a chain of events (the second and third waiting through a marker and a
  // user event the parent sets), each reading what the one before wrote.
  Kernel kernel = buildKernel(R"(
kernel void parent(global int *data, global int *status) {
  queue_t queue = get_default_queue();
  clk_event_t first, second, marker, user = create_user_event();
  status[0] = enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(256), 0, 0, &first,
                             ^{ data[get_global_id(0)] = (int)get_global_id(0); });
  status[1] = enqueue_marker(queue, 1, &first, &marker);
  clk_event_t both[2] = {marker, user};
  status[2] = enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(256), 2, both, &second,
                             ^{ data[get_global_id(0)] *= 3; });
  status[3] = enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(256), 1, &second, 0,
                             ^{ data[get_global_id(0)] += 1; });
  status[4] = is_valid_event(first) && is_valid_event(user);
  set_user_event_status(user, CL_COMPLETE);
  release_event(first);
  release_event(second);
  release_event(marker);
  release_event(user);
  // An error the enqueue reports: an event list without events.
  status[5] = enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, 0, 0,
                             ^{ data[0] = -1; });
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem data = createBuffer(CL_MEM_READ_WRITE, 256 * sizeof(int));
  Mem status = createBuffer(CL_MEM_READ_WRITE, 6 * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, data, status));
  ASSERT_TRUE(run1D(kernel, 1));
  std::vector<int> expected(256);
  for (int i = 0; i < 256; ++i)
    expected[i] = 3 * i + 1;
  EXPECT_TRUE(equalArrays(expected, read<int>(data, 256)));
  std::vector<int> statuses = {kClkSuccess, kClkSuccess, kClkSuccess,
                               kClkSuccess, 1,           kClkInvalidEventWaitList};
  EXPECT_TRUE(equalArrays(statuses, read<int>(status, 6)));
}

TEST_F(DeviceEnqueueTest, BlocksTakeLocalMemoryAndRangesOfEveryDimension) {
  // A block with two __local pointers sums each work-group of a 2-D range through them; a
  // 3-D child counts its work-items.
  Kernel kernel = buildKernel(R"(
kernel void parent(global const int *in, global int *sums, global int *count) {
  size_t global2[2] = {64, 8}, local2[2] = {16, 2};
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
                 ndrange_2D(global2, local2),
                 ^(local void *scratchMemory, local void *totalMemory) {
                   local int *scratch = scratchMemory, *total = totalMemory;
                   size_t lid = get_local_id(0) + get_local_size(0) * get_local_id(1);
                   size_t gid = get_global_id(0) + get_global_size(0) * get_global_id(1);
                   scratch[lid] = in[gid];
                   barrier(CLK_LOCAL_MEM_FENCE);
                   if (lid == 0) {
                     int sum = 0;
                     for (size_t i = 0; i < get_local_size(0) * get_local_size(1); ++i)
                       sum += scratch[i];
                     *total = sum;
                     sums[get_group_id(0) + get_num_groups(0) * get_group_id(1)] = *total;
                   }
                 },
                 (uint)(32 * sizeof(int)), (uint)sizeof(int));
  size_t offset3[3] = {1, 2, 3}, global3[3] = {4, 5, 6}, local3[3] = {2, 5, 3};
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,
                 ndrange_3D(offset3, global3, local3), ^{
                   if (get_global_offset(2) == 3 && get_local_size(1) == 5)
                     atomic_inc(count);
                 });
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  std::vector<int> input(64 * 8);
  std::iota(input.begin(), input.end(), 1);
  Mem in = bufferWith(input);
  Mem sums = createBuffer(CL_MEM_READ_WRITE, 16 * sizeof(int));
  Mem count = bufferWith(std::vector<int>{0});
  ASSERT_TRUE(setArgs(kernel, in, sums, count));
  ASSERT_TRUE(run1D(kernel, 1));
  std::vector<int> expected(16, 0);
  for (size_t y = 0; y < 8; ++y)
    for (size_t x = 0; x < 64; ++x)
      expected[x / 16 + 4 * (y / 2)] += input[x + 64 * y];
  EXPECT_TRUE(equalArrays(expected, read<int>(sums, 16)));
  EXPECT_EQ(read<int>(count, 1)[0], 4 * 5 * 6);
}

TEST_F(DeviceEnqueueTest, NestedEnqueuesReachEveryLevel) {
  // Each level enqueues the next from its work-item 0 and records itself: 12 levels deep, each
  // flag in turn.
  Kernel kernel = buildKernel(R"(
void level(global int *seen, int depth) {
  seen[depth * 4 + get_global_id(0)] = depth + 1;
  kernel_enqueue_flags_t flags = depth % 3 == 0   ? CLK_ENQUEUE_FLAGS_WAIT_KERNEL
                                 : depth % 3 == 1 ? CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP
                                                  : CLK_ENQUEUE_FLAGS_NO_WAIT;
  if (get_global_id(0) == 0 && depth + 1 < 12)
    enqueue_kernel(get_default_queue(), flags, ndrange_1D(4), ^{ level(seen, depth + 1); });
}
kernel void parent(global int *seen) { level(seen, 0); }
)",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem seen = bufferWith(std::vector<int>(48, 0));
  ASSERT_TRUE(setArgs(kernel, seen));
  ASSERT_TRUE(run1D(kernel, 4));
  std::vector<int> expected(48);
  for (int i = 0; i < 48; ++i)
    expected[i] = i / 4 + 1;
  EXPECT_TRUE(equalArrays(expected, read<int>(seen, 48)));
}

TEST_F(DeviceEnqueueTest, EnqueuesNestedDeeperThanTheGpuNestsAllRun) {
  // 40 levels, beyond CUDA's 24 levels of grids started by grids: where the GPU cannot start a
  // level itself, a record does, and every level runs once, each flag in turn.
  Kernel kernel = buildKernel(R"(
void level(global int *seen, int depth) {
  atomic_inc(&seen[depth]);
  kernel_enqueue_flags_t flags = depth % 2 == 0 ? CLK_ENQUEUE_FLAGS_NO_WAIT
                                                : CLK_ENQUEUE_FLAGS_WAIT_KERNEL;
  if (get_global_id(0) == 0 && depth + 1 < 40)
    enqueue_kernel(get_default_queue(), flags, ndrange_1D(32, 32),
                   ^{ level(seen, depth + 1); });
}
kernel void parent(global int *seen) { level(seen, 0); }
)",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem seen = bufferWith(std::vector<int>(40, 0));
  ASSERT_TRUE(setArgs(kernel, seen));
  ASSERT_TRUE(run1D(kernel, 32, 32));
  EXPECT_TRUE(equalArrays(std::vector<int>(40, 32), read<int>(seen, 40)));
}

TEST_F(DeviceEnqueueTest, ChildrenSeeWhatTheirParentsWrote) {
  // A NO_WAIT child of each work-group reads what its whole work-group wrote before the
  // barrier; a WAIT_KERNEL child reads what every work-group wrote. Work-groups of 64, chosen
  // local sizes and given ones, 2-D ranges.
  Kernel kernel = buildKernel(R"(
kernel void parent(global int *values, global int *groupSums, global int *total, int groups) {
  size_t i = get_global_id(0);
  values[i] = (int)i * 3 + 1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) != 0)
    return;
  size_t group = get_group_id(0), size = get_local_size(0);
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(size), ^{
    atomic_add(&groupSums[group], values[group * size + get_global_id(0)]);
  });
  if (group == 0) {
    size_t range[2] = {size, (size_t)groups};
    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_2D(range), ^{
      atomic_add(total, values[get_global_id(1) * size + get_global_id(0)]);
    });
  }
}
)",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  constexpr int kGroups = 48, kSize = 64;
  Mem values = bufferWith(std::vector<int>(kGroups * kSize, 0));
  Mem groupSums = bufferWith(std::vector<int>(kGroups, 0));
  Mem total = bufferWith(std::vector<int>{0});
  ASSERT_TRUE(setArgs(kernel, values, groupSums, total, kGroups));
  ASSERT_TRUE(run1D(kernel, kGroups * kSize, kSize));
  std::vector<int> expectedSums(kGroups, 0);
  int expectedTotal = 0;
  for (int i = 0; i < kGroups * kSize; ++i) {
    expectedSums[i / kSize] += i * 3 + 1;
    expectedTotal += i * 3 + 1;
  }
  EXPECT_TRUE(equalArrays(expectedSums, read<int>(groupSums, kGroups)));
  EXPECT_EQ(read<int>(total, 1)[0], expectedTotal);
}

TEST_F(DeviceEnqueueTest, RecursiveSubdivisionSumsItsRange) {
  // Each work-item splits its range in two children until a range is short, then adds it up.
  Kernel kernel = buildKernel(R"(
void split(global const int *in, global long *sum, int begin, int end) {
  if (end - begin <= 64) {
    long part = 0;
    for (int i = begin; i < end; ++i)
      part += in[i];
    atom_add(sum, part);
    return;
  }
  int middle = begin + (end - begin) / 2;
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(2), ^{
    if (get_global_id(0) == 0)
      split(in, sum, begin, middle);
    else
      split(in, sum, middle, end);
  });
}
kernel void parent(global const int *in, global long *sum, int n) { split(in, sum, 0, n); }
)",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  const int n = 10000;
  std::vector<int> input(n);
  for (int i = 0; i < n; ++i)
    input[i] = (i * 7919) % 1000 - 500;
  Mem in = bufferWith(input);
  Mem sum = bufferWith(std::vector<int64_t>{0});
  ASSERT_TRUE(setArgs(kernel, in, sum, n));
  ASSERT_TRUE(run1D(kernel, 1));
  EXPECT_EQ(read<int64_t>(sum, 1)[0], std::accumulate(input.begin(), input.end(), int64_t{0}));
}

TEST_F(DeviceEnqueueTest, ManyChildrenOfDifferentKernelsEachRunOnce) {
  // 300 work-items each enqueue, with nothing to wait for, one of four blocks: ranges of one to
  // three dimensions, local memory of the work-item's own size, and a child that enqueues a
  // grandchild in turn; every fifth also returns an event a marker waits for. A device may run
  // such children together (the CPU device: as commands of several launches); each child and
  // grandchild still runs once, over its own range with its own captures.
  if ((deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0)
    GTEST_SKIP() << "known GPU hang (docs/device-side-enqueue.md, Limits): children the GPU "
                    "starts from different enqueues of one warp, beside children with events";
  Kernel kernel = buildKernel(R"(
kernel void parent(global int *ran, global int *grandchildren, global int *marked) {
  int i = (int)get_global_id(0);
  queue_t queue = get_default_queue();
  int kind = i % 4;
  if (i % 5 == 0) {
    clk_event_t done, marker;
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(3), 0, 0, &done,
                   ^{ atomic_add(&ran[i], 1); });
    enqueue_marker(queue, 1, &done, &marker);
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &marker, 0,
                   ^{ marked[i] = ran[i]; });
    release_event(done);
    release_event(marker);
  } else if (kind == 0) {
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(i + 1), ^{
      atomic_add(&ran[i], (int)get_global_id(0) + 1);
    });
  } else if (kind == 1) {
    size_t range[2] = {(size_t)(i % 7 + 1), 8}, sizes[2] = {1, 4};
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_2D(range, sizes), ^{
      atomic_add(&ran[i], (int)(get_global_id(1) * 10 + get_local_size(1)));
    });
  } else if (kind == 2) {
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(16, 16),
                   ^(local void *scratch) {
                     local int *values = (local int *)scratch;
                     values[get_local_id(0)] = i;
                     work_group_barrier(CLK_LOCAL_MEM_FENCE);
                     if (get_local_id(0) == 0) {
                       int sum = 0;
                       for (int k = 0; k < 16; ++k)
                         sum += values[k];
                       atomic_add(&ran[i], sum);
                     }
                   },
                   (uint)(16 * sizeof(int) + i));
  } else {
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(2), ^{
      atomic_add(&ran[i], 1);
      enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4),
                     ^{ atomic_add(&grandchildren[i], i); });
    });
  }
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  constexpr int kItems = 300;
  Mem ran = bufferWith(std::vector<int>(kItems, 0));
  Mem grandchildren = bufferWith(std::vector<int>(kItems, 0));
  Mem marked = bufferWith(std::vector<int>(kItems, -1));
  ASSERT_TRUE(setArgs(kernel, ran, grandchildren, marked));
  ASSERT_TRUE(run1D(kernel, kItems));
  std::vector<int> expectedRan(kItems), expectedGrandchildren(kItems, 0),
      expectedMarked(kItems, -1);
  for (int i = 0; i < kItems; ++i) {
    if (i % 5 == 0) {
      expectedRan[i] = 3;
      expectedMarked[i] = 3;
    } else if (i % 4 == 0) {
      expectedRan[i] = (i + 1) * (i + 2) / 2;
    } else if (i % 4 == 1) {
      expectedRan[i] = (i % 7 + 1) * (10 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) + 8 * 4);
    } else if (i % 4 == 2) {
      expectedRan[i] = 16 * i;
    } else {
      expectedRan[i] = 2;
      expectedGrandchildren[i] = 2 * 4 * i;
    }
  }
  EXPECT_TRUE(equalArrays(expectedRan, read<int>(ran, kItems)));
  EXPECT_TRUE(equalArrays(expectedGrandchildren, read<int>(grandchildren, kItems)));
  EXPECT_TRUE(equalArrays(expectedMarked, read<int>(marked, kItems)));
}

TEST_F(DeviceEnqueueTest, ParentCompletesAfterItsChildren) {
  // The parent's event, waited for alone, covers its children's work.
  Kernel kernel = buildKernel(R"(
kernel void parent(global int *out) {
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4096), ^{
    int x = (int)get_global_id(0);
    for (int i = 0; i < 1000; ++i)
      x = x * 1103515245 + 12345;
    out[get_global_id(0)] = x;
  });
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem out = bufferWith(std::vector<int>(4096, 0));
  ASSERT_TRUE(setArgs(kernel, out));
  size_t one = 1;
  cl_event raw = nullptr;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &one, nullptr, 0, nullptr, &raw));
  Event done(raw);
  ASSERT_CL_SUCCESS(clWaitForEvents(1, &raw));
  std::vector<int> result(4096);
  // Read through a second queue, so that only the event orders it after the children.
  cl_int error = CL_SUCCESS;
  Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clEnqueueReadBuffer(other, out, CL_TRUE, 0, 4096 * sizeof(int), result.data(),
                                        0, nullptr, nullptr));
  std::vector<int> expected(4096);
  for (int i = 0; i < 4096; ++i) {
    unsigned x = i;
    for (int k = 0; k < 1000; ++k)
      x = x * 1103515245u + 12345u;
    expected[i] = static_cast<int>(x);
  }
  EXPECT_TRUE(equalArrays(expected, result));
}

TEST_F(DeviceEnqueueTest, BlockQueriesAnswerForTheDevice) {
  Kernel kernel = buildKernel(R"(
kernel void parent(global uint *out) {
  void (^block)(void) = ^{ out[4] = 1; };
  out[0] = get_kernel_work_group_size(block);
  out[1] = get_kernel_preferred_work_group_size_multiple(block);
  ndrange_t range = ndrange_1D(64, 64);
  out[2] = get_kernel_max_sub_group_size_for_ndrange(range, block);
  out[3] = get_kernel_sub_group_count_for_ndrange(range, block);
  // A local size beyond what the kernel allows fails.
  out[5] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,
                          ndrange_1D(1 << 20, 1 << 20), block);
  out[6] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), block);
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem out = bufferWith(std::vector<cl_uint>(7, 0));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 1));
  std::vector<cl_uint> result = read<cl_uint>(out, 7);
  EXPECT_GE(result[0], 64u);
  EXPECT_LE(result[0], deviceInfo<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  EXPECT_GE(result[1], 1u);
  EXPECT_GE(result[2], 1u);
  EXPECT_LE(result[2], 64u);
  EXPECT_EQ(result[3], (64 + result[2] - 1) / result[2]);
  EXPECT_EQ(static_cast<cl_int>(result[5]), kClkInvalidNDRange);
  EXPECT_EQ(result[6], static_cast<cl_uint>(kClkSuccess));
  EXPECT_EQ(result[4], 1u);
}

TEST_F(DeviceEnqueueTest, FullQueueRefusesMoreEnqueues) {
  // A 16 KiB default queue holds a bounded number of records; the rest are refused with
  // CLK_DEVICE_QUEUE_FULL and the ones that fit all run. (Enqueues that return an event: the
  // GPU starts those without one itself, beside the queue's records.)
  Queue small = makeDeviceQueue(0, 16 * 1024);
  ASSERT_CL_SUCCESS(clSetDefaultDeviceCommandQueue(context_, device_, small));
  Kernel kernel = buildKernel(R"(
kernel void parent(global int *ran, global int *refused) {
  clk_event_t done;
  int status = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0,
                              0, &done, ^{ atomic_inc(ran); });
  if (status == CLK_DEVICE_QUEUE_FULL)
    atomic_inc(refused);
  else
    release_event(done);
})",
                              "parent", kOpenCLC30);
  ASSERT_NE(kernel.get(), nullptr);
  Mem ran = bufferWith(std::vector<int>{0});
  Mem refused = bufferWith(std::vector<int>{0});
  ASSERT_TRUE(setArgs(kernel, ran, refused));
  ASSERT_TRUE(run1D(kernel, 1000));
  int runs = read<int>(ran, 1)[0];
  int refusals = read<int>(refused, 1)[0];
  EXPECT_EQ(runs + refusals, 1000);
  EXPECT_GT(runs, 0);
  EXPECT_GT(refusals, 0);
}

} // namespace

namespace {

TEST_F(DeviceEnqueueTest, OpenCLC20ProgramsBuildAndRun) {
  // With pipes and device-side enqueue the device offers OpenCL C 2.0: a program of the 2.0
  // kind (the default of the C++ bindings) uses program-scope variables, the generic address
  // space, C11 atomics, a work-group collective and device-side enqueue.
  ASSERT_TRUE(supportsOpenCLC(device_, 2, 0));
  Kernel kernel = buildKernel(R"(
#if __OPENCL_C_VERSION__ != 200
#error not OpenCL C 2.0
#endif
global atomic_int total = ATOMIC_VAR_INIT(0);
global int table[1 << 18];
void add(int *where, int value) { *where += value; }
kernel void parent(global int *out) {
  size_t i = get_global_id(0);
  table[i] = (int)i;
  int sum = work_group_reduce_add((int)i);
  add(&table[i], sum);
  atomic_fetch_add(&total, 1);
  if (i == 0)
    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(get_global_size(0)),
                   ^{ size_t j = get_global_id(0);
                      out[j] = table[j] + atomic_load(&total); });
}
)",
                              "parent", "-cl-std=CL2.0");
  ASSERT_NE(kernel.get(), nullptr);
  Mem out = bufferWith(std::vector<int>(256, 0));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 256, 64));
  std::vector<int> expected(256);
  for (int i = 0; i < 256; ++i) {
    int group = i / 64 * 64;
    int sum = 64 * group + 64 * 63 / 2;
    expected[i] = i + sum + 256;
  }
  EXPECT_TRUE(equalArrays(expected, read<int>(out, 256)));
}

} // namespace
