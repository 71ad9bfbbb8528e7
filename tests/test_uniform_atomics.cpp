// Integer atomic adds and subs that every work-item of a SIMD group makes to one address: the
// CPU device makes them as one atomic of the group's sum and hands each work-item the value it
// would have seen in some order of the group's atomics (codegen/vectorizer/uniform_atomics.hpp).
// The totals are the host's, exactly; the values the atomics return are each a different ticket,
// together every ticket once; work-items that skip the atomic (divergent branches, a narrower
// last work-group) add nothing. CI runs these again with the vectorizer off, where each
// work-item makes its own atomic.
#include "cl_test.hpp"

#include <algorithm>
#include <numeric>

using namespace cltest;

namespace {

const char *kSource = R"(
  // Every third work-item skips; the others add a value of their own, several times.
  kernel void addToOne(global int *total, int rounds) {
    uint id = get_global_id(0);
    if (id % 3 == 1)
      return;
    for (int k = 0; k < rounds; ++k)
      atomic_add(total, (int)(id % 7) + 1);
  }
  // Each work-item takes a ticket; odd work-items of every fifth work-group skip.
  kernel void takeTickets(global uint *next, global uint *tickets) {
    uint id = get_global_id(0);
    uint ticket = 0xffffffffu;
    if (get_group_id(0) % 5 != 4 || id % 2 == 0)
      ticket = atomic_inc(next);
    tickets[id] = ticket;
  }
  // Counting down by two from a start the host sets.
  kernel void countDown(global int *left, global int *taken) {
    taken[get_global_id(0)] = atomic_sub(left, 2);
  }
  // Each work-group packs its work-items with odd values into local memory by a local counter,
  // then writes them out, sorted by the host.
  kernel void packOdd(global const uint *values, global uint *packed, global uint *counts) {
    local uint count;
    local uint slots[256];
    if (get_local_id(0) == 0)
      count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint value = values[get_global_id(0)];
    if (value % 2 == 1)
      slots[atomic_inc(&count)] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint mine = count;
    if (get_local_id(0) < mine)
      packed[get_group_id(0) * 256 + get_local_id(0)] = slots[get_local_id(0)];
    if (get_local_id(0) == 0)
      counts[get_group_id(0)] = mine;
  }
  // 64-bit totals with the OpenCL C 2.0 atomics, whose results feed the next value.
  kernel void addLong(global atomic_long *total, global long *seen) {
    long value = (long)get_global_id(0) * 1000003L + 1;
    long before = atomic_fetch_add_explicit(total, value, memory_order_relaxed,
                                            memory_scope_device);
    seen[get_global_id(0)] = before;
  })";

class UniformAtomicsTest : public ClTest {};

TEST_F(UniformAtomicsTest, AddsOfSomeWorkItemsSumLikeTheHost) {
  Kernel kernel = buildKernel(kSource, "addToOne", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  for (size_t global : {size_t{4096}, size_t{1000}, size_t{37}}) {
    SCOPED_TRACE(std::to_string(global) + " work-items");
    Mem total = bufferWith(std::vector<cl_int>{5});
    const cl_int rounds = 3;
    ASSERT_TRUE(setArgs(kernel.get(), total.get(), rounds));
    ASSERT_TRUE(run1D(kernel, global, global % 64 == 0 ? 64 : 0));
    cl_int expected = 5;
    for (size_t id = 0; id < global; ++id)
      if (id % 3 != 1)
        expected += rounds * (static_cast<cl_int>(id % 7) + 1);
    EXPECT_EQ(read<cl_int>(total, 1)[0], expected);
  }
}

TEST_F(UniformAtomicsTest, EveryTicketIsTakenOnce) {
  Kernel kernel = buildKernel(kSource, "takeTickets", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  const size_t local = 128, global = local * 23;
  Mem next = bufferWith(std::vector<cl_uint>{0});
  Mem tickets = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(kernel.get(), next.get(), tickets.get()));
  ASSERT_TRUE(run1D(kernel, global, local));
  std::vector<cl_uint> taken;
  std::vector<cl_uint> all = read<cl_uint>(tickets, global);
  for (size_t id = 0; id < global; ++id) {
    bool takes = (id / local) % 5 != 4 || id % 2 == 0;
    if (!takes) {
      EXPECT_EQ(all[id], 0xffffffffu) << "work-item " << id;
      continue;
    }
    taken.push_back(all[id]);
  }
  std::sort(taken.begin(), taken.end());
  std::vector<cl_uint> expected(taken.size());
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(taken, expected);
  EXPECT_EQ(read<cl_uint>(next, 1)[0], static_cast<cl_uint>(taken.size()));
}

TEST_F(UniformAtomicsTest, SubtractionsReturnEveryValueOnTheWayDown) {
  Kernel kernel = buildKernel(kSource, "countDown", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  const size_t global = 3001;
  const cl_int start = 100000;
  Mem left = bufferWith(std::vector<cl_int>{start});
  Mem taken = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel.get(), left.get(), taken.get()));
  ASSERT_TRUE(run1D(kernel, global));
  std::vector<cl_int> values = read<cl_int>(taken, global);
  std::sort(values.begin(), values.end());
  std::vector<cl_int> expected(global);
  for (size_t i = 0; i < global; ++i)
    expected[i] = start - 2 * static_cast<cl_int>(global - 1 - i);
  EXPECT_EQ(values, expected);
  EXPECT_EQ(read<cl_int>(left, 1)[0], start - 2 * static_cast<cl_int>(global));
}

TEST_F(UniformAtomicsTest, LocalCountersPackEachWorkGroupsValues) {
  Kernel kernel = buildKernel(kSource, "packOdd", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  const size_t local = 256, groups = 40, global = local * groups;
  std::vector<cl_uint> values(global);
  for (size_t i = 0; i < global; ++i)
    values[i] = static_cast<cl_uint>((i * 2654435761u) >> 9);
  Mem input = bufferWith(values, CL_MEM_READ_ONLY);
  Mem packed = bufferWith(std::vector<cl_uint>(global, 0));
  Mem counts = createBuffer(CL_MEM_WRITE_ONLY, groups * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(kernel.get(), input.get(), packed.get(), counts.get()));
  ASSERT_TRUE(run1D(kernel, global, local));
  std::vector<cl_uint> out = read<cl_uint>(packed, global);
  std::vector<cl_uint> count = read<cl_uint>(counts, groups);
  for (size_t group = 0; group < groups; ++group) {
    SCOPED_TRACE("work-group " + std::to_string(group));
    std::vector<cl_uint> expected;
    for (size_t i = group * local; i < (group + 1) * local; ++i)
      if (values[i] % 2 == 1)
        expected.push_back(values[i]);
    ASSERT_EQ(count[group], expected.size());
    std::vector<cl_uint> got(out.begin() + group * local,
                             out.begin() + group * local + expected.size());
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected);
  }
}

TEST_F(UniformAtomicsTest, LongAddsReturnTheTotalsBeforeThem) {
  if (!hasExtension(device_, "cl_khr_int64_base_atomics"))
    GTEST_SKIP() << "no 64-bit atomics";
  Kernel kernel = buildKernel(kSource, "addLong", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  const size_t global = 777;
  const cl_long start = 1ll << 40;
  Mem total = bufferWith(std::vector<cl_long>{start});
  Mem seen = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_long));
  ASSERT_TRUE(setArgs(kernel.get(), total.get(), seen.get()));
  ASSERT_TRUE(run1D(kernel, global));
  // Sorted by what each saw, the work-items' values add up from the start to the next one's.
  std::vector<cl_long> before = read<cl_long>(seen, global);
  std::vector<size_t> order(global);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return before[a] < before[b]; });
  cl_long running = start;
  for (size_t id : order) {
    ASSERT_EQ(before[id], running) << "work-item " << id;
    running += static_cast<cl_long>(id) * 1000003 + 1;
  }
  EXPECT_EQ(read<cl_long>(total, 1)[0], running);
}

} // namespace
