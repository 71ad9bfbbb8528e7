// Values the whole work-group holds alike across barriers (a loop counter, what is computed from
// it and the group's id) are kept once per work-group on the CPU device, and where every branch
// that chooses the next barrier tests such a value, the work-items are not tracked one by one.
// These kernels check the results against the host where that holds and where it must not be
// assumed: a counter whose loop ends at a different count per work-item, a work-group value
// computed under a condition only some work-items take, work-items that return before a
// barrier, and the choice between two barriers by a work-group value. (A tree reduction over a
// halving range is NDRangeTest.LocalMemoryReductionAtSeveralWorkGroupSizes.)
#include "cl_test.hpp"

#include <numeric>

using namespace cltest;

namespace {

class WorkGroupUniformValuesTest : public ClTest {
protected:
  size_t kernelMaxGroup(cl_kernel kernel) {
    return workGroupInfo<size_t>(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE);
  }
  /// The local sizes to try: one work-item, sizes that are not a multiple of any SIMD width,
  /// and full ones.
  std::vector<size_t> localSizes(cl_kernel kernel) {
    std::vector<size_t> sizes;
    for (size_t local : {size_t{1}, size_t{7}, size_t{64}, size_t{100}, size_t{256}})
      if (local <= kernelMaxGroup(kernel))
        sizes.push_back(local);
    return sizes;
  }
  std::vector<int> randomInts(size_t count, uint64_t seed) {
    std::vector<int> values(count);
    Random random(seed);
    for (int &value : values)
      value = static_cast<int>(random.next() % 201) - 100;
    return values;
  }
};

TEST_F(WorkGroupUniformValuesTest, HillisSteeleScanInLocalMemoryMatchesTheHost) {
  Kernel kernel = buildKernel(R"(
    kernel void scan(global int *data, local int *values) {
      int id = get_local_id(0), n = get_local_size(0);
      values[id] = data[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int offset = 1; offset < n; offset *= 2) {
        int before = id >= offset ? values[id - offset] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        values[id] += before;
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      data[get_global_id(0)] = values[id];
    })",
                              "scan");
  ASSERT_NE(nullptr, kernel.get());
  for (size_t local : localSizes(kernel)) {
    SCOPED_TRACE("local size " + std::to_string(local));
    const size_t groups = 5, global = groups * local;
    std::vector<int> input = randomInts(global, local);
    Mem data = bufferWith(input);
    ASSERT_TRUE(setArgs(kernel, data, LocalSize{local * sizeof(int)}));
    ASSERT_TRUE(run1D(kernel, global, local));
    std::vector<int> expected(global);
    for (size_t group = 0; group < groups; ++group)
      std::partial_sum(input.begin() + group * local, input.begin() + (group + 1) * local,
                       expected.begin() + group * local);
    EXPECT_TRUE(equalArrays(expected, read<int>(data, global)));
  }
}

// `round` and `step` are the work-group's; which of two barriers comes next depends on them.
// `acc` is each work-item's own; `picked` is a work-group value that only every third work-item
// computes before the barrier and reads after it.
TEST_F(WorkGroupUniformValuesTest, WorkGroupValuesChooseBetweenBarriers) {
  Kernel kernel = buildKernel(R"(
    kernel void rounds(global int *out, local int *tmp) {
      int lid = get_local_id(0), n = get_local_size(0), group = get_group_id(0);
      int acc = lid * 3 + group;
      int step = 1 + group % 2;
      for (int round = 0; round < 2 + group % 3; round += step) {
        int picked = 0;
        if (lid % 3 == 0)
          picked = round * 5 + group;
        if (round % 2 == 0) {
          tmp[lid] = acc;
          barrier(CLK_LOCAL_MEM_FENCE);
          acc += tmp[(lid + round + 1) % n] + picked;
        } else {
          tmp[lid] = acc * 2;
          barrier(CLK_LOCAL_MEM_FENCE);
          acc -= tmp[n - 1 - lid] - picked;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      out[get_global_id(0)] = acc;
    })",
                              "rounds");
  ASSERT_NE(nullptr, kernel.get());
  for (size_t local : localSizes(kernel)) {
    SCOPED_TRACE("local size " + std::to_string(local));
    const size_t groups = 6, global = groups * local;
    Mem out = createBuffer(CL_MEM_READ_WRITE, global * sizeof(int));
    ASSERT_TRUE(setArgs(kernel, out, LocalSize{local * sizeof(int)}));
    ASSERT_TRUE(run1D(kernel, global, local));
    std::vector<int> expected(global);
    const int n = static_cast<int>(local);
    for (int group = 0; group < static_cast<int>(groups); ++group) {
      std::vector<int> acc(n), tmp(n);
      for (int lid = 0; lid < n; ++lid)
        acc[lid] = lid * 3 + group;
      int step = 1 + group % 2;
      for (int round = 0; round < 2 + group % 3; round += step) {
        for (int lid = 0; lid < n; ++lid)
          tmp[lid] = round % 2 == 0 ? acc[lid] : acc[lid] * 2;
        for (int lid = 0; lid < n; ++lid) {
          int picked = lid % 3 == 0 ? round * 5 + group : 0;
          if (round % 2 == 0)
            acc[lid] += tmp[(lid + round + 1) % n] + picked;
          else
            acc[lid] -= tmp[n - 1 - lid] - picked;
        }
      }
      for (int lid = 0; lid < n; ++lid)
        expected[group * local + lid] = acc[lid];
    }
    EXPECT_TRUE(equalArrays(expected, read<int>(out, global)));
  }
}

// The loop holds a barrier the work-items never reach, so it may end at a different count for
// each: its counter is not the work-group's, though it goes up by one from zero in every
// work-item. The work-items past `active` return before the last barrier.
TEST_F(WorkGroupUniformValuesTest, CountersOfLoopsThatEndPerWorkItemStayPerWorkItem) {
  Kernel kernel = buildKernel(R"(
    kernel void counts(global int *out, local int *tmp, int never, int active) {
      int lid = get_local_id(0), n = get_local_size(0);
      int i = 0, sum = 0;
      for (; i < lid % 5 + (int)get_group_id(0); ++i) {
        if (never)
          barrier(CLK_LOCAL_MEM_FENCE);
        sum += i;
      }
      tmp[lid] = sum;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid >= active)
        return;
      int neighbour = tmp[(lid + 1) % n];
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = i * 1000 + sum * 10 + neighbour;
    })",
                              "counts");
  ASSERT_NE(nullptr, kernel.get());
  for (size_t local : localSizes(kernel)) {
    SCOPED_TRACE("local size " + std::to_string(local));
    const size_t groups = 4, global = groups * local;
    const int active = static_cast<int>(local) - static_cast<int>(local) / 4;
    std::vector<int> initial(global, -1);
    Mem out = bufferWith(initial);
    ASSERT_TRUE(setArgs(kernel, out, LocalSize{local * sizeof(int)}, 0, active));
    ASSERT_TRUE(run1D(kernel, global, local));
    std::vector<int> expected(global, -1);
    const int n = static_cast<int>(local);
    auto countOf = [](int lid, int group) { return lid % 5 + group; };
    auto sumOf = [&](int lid, int group) {
      int count = countOf(lid, group);
      return count * (count - 1) / 2;
    };
    for (int group = 0; group < static_cast<int>(groups); ++group)
      for (int lid = 0; lid < active; ++lid)
        expected[group * local + lid] =
            countOf(lid, group) * 1000 + sumOf(lid, group) * 10 + sumOf((lid + 1) % n, group);
    EXPECT_TRUE(equalArrays(expected, read<int>(out, global)));
  }
}

} // namespace
