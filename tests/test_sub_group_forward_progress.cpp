// Independent forward progress of sub-groups (CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
// which cl_khr_subgroups promises): a sub-group that waits for another of its work-group, on a
// flag, a turn or a lock in local or global memory, through OpenCL C 2.0 atomics or 1.x volatile
// accesses, sees the other go on and finishes. Each kernel runs at the device's default
// sub-group size and at the sizes intel_reqd_sub_group_size asks for, in work-groups that are and
// are not multiples of it; CI runs the suite again with KILN_VECTORIZE=0, where a CPU sub-group
// of the default size is one work-item. Loops that only look like waits (a counter's tickets, an
// update retried with a compare-exchange) give the results a host computes.
#include "cl_test.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <numeric>
#include <string>

using namespace cltest;

namespace {

constexpr const char *kOptions = "-cl-std=CL3.0";

/// Each kernel stores, per sub-group, what it saw at `out[group * maxSubGroups + subGroup]`.
const char *kWaitingKernels = R"(
#ifdef SIZE
#define REQD __attribute__((intel_reqd_sub_group_size(SIZE)))
#else
#define REQD
#endif
#define SLOT(out) out[get_group_id(0) * MAX_SUB_GROUPS + get_sub_group_id()]

// The sub-groups take turns from the last to the first: every one but the last waits for the
// one after it, so sub-groups run one after the other in their order would never finish.
REQD kernel void turns(global uint *out) {
  local atomic_uint turn, position;
  if (get_local_id(0) == 0) {
    atomic_init(&turn, get_num_sub_groups() - 1);
    atomic_init(&position, 0);
  }
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  uint mine = 0;
  if (get_sub_group_local_id() == 0) {
    while (atomic_load(&turn) != get_sub_group_id())
      ;
    mine = atomic_fetch_add(&position, 1);
    atomic_fetch_sub(&turn, 1);
  }
  mine = sub_group_broadcast(mine, 0);
  if (get_sub_group_local_id() == 0)
    SLOT(out) = mine;
}

// Every sub-group waits, in global memory, until the last one of its work-group has written.
REQD kernel void flag(global atomic_uint *flags, global uint *out) {
  global atomic_uint *mine = flags + get_group_id(0);
  if (get_sub_group_id() == get_num_sub_groups() - 1) {
    if (get_sub_group_local_id() == 0)
      atomic_store(mine, 1000 + get_group_id(0));
  } else {
    while (atomic_load(mine) == 0)
      ;
  }
  if (get_sub_group_local_id() == 0)
    SLOT(out) = atomic_load(mine);
}

// A lock taken with a compare-exchange of a constant and held across a wait: sub-group 0 takes
// it first and releases it only once every other sub-group has asked for it.
REQD kernel void lock(global uint *out) {
  local atomic_int held, asking;
  local uint order;
  if (get_local_id(0) == 0) {
    atomic_init(&held, 1); // sub-group 0 holds it from the start
    atomic_init(&asking, 0);
    order = 0;
  }
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  uint sg = get_sub_group_id();
  uint mine = 0;
  if (get_sub_group_local_id() == 0) {
    if (sg == 0) {
      while (atomic_load(&asking) != (int)get_num_sub_groups() - 1)
        ;
    } else {
      atomic_fetch_add(&asking, 1);
      int expected = 0;
      while (!atomic_compare_exchange_strong(&held, &expected, 1))
        expected = 0;
    }
    mine = order++;
    atomic_store(&held, 0);
  }
  mine = sub_group_broadcast(mine, 0);
  if (get_sub_group_local_id() == 0)
    SLOT(out) = mine;
}
)";

/// OpenCL C 1.2: a volatile flag in local memory, set by the last sub-group (here a work-item
/// of the last one), waited on by the first work-item of every other.
const char *kVolatileKernel = R"(
kernel void volatile_flag(global uint *out) {
  local int flag;
  if (get_local_id(0) == 0)
    flag = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  volatile local int *seen = &flag;
  if (get_local_id(0) == get_local_size(0) - 1)
    *seen = 77;
  else if (get_local_id(0) == 0)
    while (*seen != 77)
      ;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = *seen;
}
)";

/// Loops that wait for no one: a shared counter's tickets, and a float sum whose every addition
/// retries a compare-exchange of the value it read.
const char *kNonWaitingKernels = R"(
kernel void tickets(global uint *out, uint count) {
  local atomic_uint next;
  if (get_local_id(0) == 0)
    atomic_init(&next, 0);
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  uint ticket;
  while ((ticket = atomic_fetch_add(&next, 1)) < count)
    out[get_group_id(0) * count + ticket] = ticket * 3 + get_group_id(0);
}

kernel void cas_sum(global const float *in, global float *sums) {
  local float sum;
  if (get_local_id(0) == 0)
    sum = 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  volatile local uint *bits = (volatile local uint *)&sum;
  uint old, updated;
  do {
    old = *bits;
    updated = as_uint(as_float(old) + in[get_global_id(0)]);
  } while (atomic_cmpxchg(bits, old, updated) != old);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    sums[get_group_id(0)] = sum;
}
)";

constexpr size_t kGroups = 6;

class ForwardProgressTest : public ClTest, public ::testing::WithParamInterface<unsigned> {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (deviceInfo<cl_bool>(device_, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS) != CL_TRUE)
      GTEST_SKIP() << "the device's sub-groups do not make independent forward progress";
    if (GetParam() != 0) {
      std::vector<size_t> sizes = deviceArray<size_t>(device_, CL_DEVICE_SUB_GROUP_SIZES_INTEL);
      if (std::find(sizes.begin(), sizes.end(), GetParam()) == sizes.end())
        GTEST_SKIP() << "the device does not offer sub-groups of " << GetParam();
    }
  }

  std::string options(size_t maxSubGroups) const {
    std::string text = std::string(kOptions) + " -DMAX_SUB_GROUPS=" + std::to_string(maxSubGroups);
    if (GetParam() != 0)
      text += " -DSIZE=" + std::to_string(GetParam());
    return text;
  }

  /// Local sizes of several sub-groups: a multiple of the largest size offered, and one that
  /// leaves the last sub-group partial.
  static std::vector<size_t> localSizes() { return {128, 200}; }

  /// Runs the kernel `name` of kWaitingKernels over kGroups groups of `local` by `rows`
  /// work-items; returns each group's per-sub-group results and sets `subGroups` to their count.
  std::vector<cl_uint> runWaiting(const char *name, size_t local, size_t &subGroups,
                                  size_t rows = 1) {
    const size_t most = 256; // sub-groups a group of at most 256 work-items can have
    Kernel kernel = buildKernel(kWaitingKernels, name, options(most));
    if (!kernel)
      return {};
    size_t width = subGroupWidth(kernel, device_, local * rows);
    EXPECT_TRUE(GetParam() == 0 || width == GetParam()) << width;
    subGroups = (local * rows + width - 1) / width;
    std::vector<cl_uint> zeros(kGroups * most, 0);
    Mem out = bufferWith(zeros);
    Mem flags = bufferWith(std::vector<cl_uint>(kGroups, 0));
    if (std::string(name) == "flag")
      EXPECT_TRUE(setArgs(kernel, flags, out));
    else
      EXPECT_TRUE(setArgs(kernel, out));
    size_t global[2] = {kGroups * local, rows}, shape[2] = {local, rows};
    EXPECT_TRUE(run(kernel, 2, global, shape));
    std::vector<cl_uint> all = read<cl_uint>(out, zeros.size());
    std::vector<cl_uint> seen;
    for (size_t group = 0; group < kGroups; ++group)
      seen.insert(seen.end(), all.begin() + group * most, all.begin() + group * most + subGroups);
    return seen;
  }
};

TEST_P(ForwardProgressTest, SubGroupsWaitingForLaterOnesGetTheirTurns) {
  for (size_t local : localSizes()) {
    size_t subGroups = 0;
    std::vector<cl_uint> seen = runWaiting("turns", local, subGroups);
    ASSERT_GT(subGroups, 1u);
    std::vector<cl_uint> expected;
    for (size_t group = 0; group < kGroups; ++group)
      for (size_t sg = 0; sg < subGroups; ++sg)
        expected.push_back(static_cast<cl_uint>(subGroups - 1 - sg));
    EXPECT_TRUE(equalArrays(expected, seen)) << "local size " << local;
  }
}

// Rows of 12 work-items hold no whole number of sub-groups: the CPU runs such a group's
// work-items one at a time, each yielding on its own.
TEST_P(ForwardProgressTest, SubGroupsSpanningRowsOfATwoDimensionalGroupGetTheirTurns) {
  size_t subGroups = 0;
  std::vector<cl_uint> seen = runWaiting("turns", 12, subGroups, 10);
  ASSERT_GT(subGroups, 1u);
  std::vector<cl_uint> expected;
  for (size_t group = 0; group < kGroups; ++group)
    for (size_t sg = 0; sg < subGroups; ++sg)
      expected.push_back(static_cast<cl_uint>(subGroups - 1 - sg));
  EXPECT_TRUE(equalArrays(expected, seen));
}

TEST_P(ForwardProgressTest, SubGroupsWaitOnAGlobalFlagTheLastOneSets) {
  for (size_t local : localSizes()) {
    size_t subGroups = 0;
    std::vector<cl_uint> seen = runWaiting("flag", local, subGroups);
    std::vector<cl_uint> expected;
    for (size_t group = 0; group < kGroups; ++group)
      expected.insert(expected.end(), subGroups, static_cast<cl_uint>(1000 + group));
    EXPECT_TRUE(equalArrays(expected, seen)) << "local size " << local;
  }
}

TEST_P(ForwardProgressTest, ALockHeldWhileWaitingPassesToEveryOtherSubGroup) {
  for (size_t local : localSizes()) {
    size_t subGroups = 0;
    std::vector<cl_uint> seen = runWaiting("lock", local, subGroups);
    // Each group's sub-groups took the lock one at a time: their positions are 0..n-1, the
    // holder's first.
    for (size_t group = 0; group < kGroups; ++group) {
      std::vector<cl_uint> order(seen.begin() + group * subGroups,
                                 seen.begin() + (group + 1) * subGroups);
      EXPECT_EQ(0u, order.front()) << "local size " << local << ", group " << group;
      std::sort(order.begin(), order.end());
      std::vector<cl_uint> expected(subGroups);
      std::iota(expected.begin(), expected.end(), 0u);
      EXPECT_EQ(expected, order) << "local size " << local << ", group " << group;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SubGroupSizes, ForwardProgressTest, ::testing::Values(0u, 8u, 16u),
                         [](const ::testing::TestParamInfo<unsigned> &info) {
                           return info.param == 0 ? std::string("Default")
                                                  : "Required" + std::to_string(info.param);
                         });

class ForwardProgressProgramTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (deviceInfo<cl_bool>(device_, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS) != CL_TRUE)
      GTEST_SKIP() << "the device's sub-groups do not make independent forward progress";
  }

  /// Two local sizes at which `kernel`'s work-groups have more than one sub-group, so that its
  /// first and last work-items are in different ones: forward progress is promised between
  /// sub-groups, not between the work-items of one (a CPU with AVX-512 may run 64 in one).
  std::vector<size_t> sizesOfSeveralSubGroups(cl_kernel kernel) const {
    std::vector<size_t> sizes;
    for (size_t local : {size_t{64}, size_t{100}, size_t{128}, size_t{256}})
      if (sizes.size() < 2 && subGroupWidth(kernel, device_, local) < local)
        sizes.push_back(local);
    EXPECT_EQ(2u, sizes.size()) << "sub-groups as wide as the work-group";
    return sizes;
  }
};

TEST_F(ForwardProgressProgramTest, OpenCLC12WaitsOnAVolatileLocalFlag) {
  Kernel kernel = buildKernel(kVolatileKernel, "volatile_flag");
  ASSERT_TRUE(kernel);
  for (size_t local : sizesOfSeveralSubGroups(kernel)) {
    Mem out = createBuffer(CL_MEM_READ_WRITE, kGroups * local * sizeof(cl_uint));
    ASSERT_TRUE(setArgs(kernel, out));
    ASSERT_TRUE(run1D(kernel, kGroups * local, local));
    EXPECT_TRUE(
        equalArrays(std::vector<cl_uint>(kGroups * local, 77), read<cl_uint>(out, kGroups * local)))
        << "local size " << local;
  }
}

TEST_F(ForwardProgressProgramTest, CountersAndRetriedUpdatesGiveTheHostsResults) {
  // Neither kind of loop waits for anyone: the CPU's report names no waiting loop in them, where
  // it names the wait of kVolatileKernel.
  Kernel waiting = buildReportingKernel(kVolatileKernel, "volatile_flag");
  ASSERT_TRUE(waiting);
  std::vector<size_t> waitingSizes = sizesOfSeveralSubGroups(waiting);
  ASSERT_FALSE(waitingSizes.empty());
  const size_t waitingSize = waitingSizes.front();
  Mem flagged = createBuffer(CL_MEM_READ_WRITE, waitingSize * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(waiting, flagged));
  if (isKilnCpuDevice())
    EXPECT_NE(runCapturingStderr(waiting, waitingSize, waitingSize).find("1 loop may wait"),
              std::string::npos);
  const cl_uint count = 1000;
  const size_t local = 64;
  Kernel tickets = buildReportingKernel(kNonWaitingKernels, "tickets", kOptions);
  ASSERT_TRUE(tickets);
  Mem out = createBuffer(CL_MEM_READ_WRITE, kGroups * count * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(tickets, out, count));
  std::string report = runCapturingStderr(tickets, kGroups * local, local);
  EXPECT_EQ(std::string::npos, report.find("may wait")) << report;
  std::vector<cl_uint> expected;
  for (cl_uint group = 0; group < kGroups; ++group)
    for (cl_uint ticket = 0; ticket < count; ++ticket)
      expected.push_back(ticket * 3 + group);
  EXPECT_TRUE(equalArrays(expected, read<cl_uint>(out, expected.size())));

  Kernel sum = buildReportingKernel(kNonWaitingKernels, "cas_sum", kOptions);
  ASSERT_TRUE(sum);
  const size_t items = kGroups * 96;
  std::vector<float> in(items);
  for (size_t index = 0; index < items; ++index)
    in[index] = static_cast<float>(index % 7) - 2.0f; // small integers: exact in any order
  Mem input = bufferWith(in);
  Mem sums = createBuffer(CL_MEM_READ_WRITE, kGroups * sizeof(float));
  ASSERT_TRUE(setArgs(sum, input, sums));
  report = runCapturingStderr(sum, items, 96);
  EXPECT_EQ(std::string::npos, report.find("may wait")) << report;
  std::vector<float> expectedSums(kGroups, 0.0f);
  for (size_t index = 0; index < items; ++index)
    expectedSums[index / 96] += in[index];
  EXPECT_EQ(expectedSums, read<float>(sums, kGroups));
}

} // namespace
