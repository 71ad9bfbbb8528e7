// Kernels run with many local sizes, offsets and non-uniform edges: Kiln's CPU device compiles
// a work-group function per local size (and for a zero offset), so each of these runs its own
// specialization, and all must agree with the host. Program-scope variables must stay one
// variable across every kernel and specialization of a program.
#include "cl_test.hpp"

#include <array>
#include <thread>

using namespace cltest;

namespace {

class SpecializationTest : public ClTest {};

/// Every work-item writes what it sees of the NDRange into 8 ints.
const char *kGeometrySource = R"(
  kernel void geometry(global int *out) {
    size_t linear = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) *
                        get_global_size(0) +
                    (get_global_id(1) - get_global_offset(1)) * get_global_size(0) +
                    (get_global_id(0) - get_global_offset(0));
    global int *mine = out + 8 * linear;
    mine[0] = get_global_id(0);
    mine[1] = get_global_id(1);
    mine[2] = get_local_id(0);
    mine[3] = get_local_id(1);
    mine[4] = get_local_size(0);
    mine[5] = get_local_size(1);
    mine[6] = get_enqueued_local_size(0) * 1000 + get_enqueued_local_size(1);
    mine[7] = get_group_id(0) * 1000 + get_group_id(1);
  })";

struct Range2D {
  std::array<size_t, 2> global, local, offset;
};

std::vector<cl_int> geometryReference(const Range2D &range) {
  std::vector<cl_int> out(8 * range.global[0] * range.global[1]);
  for (size_t y = 0; y < range.global[1]; ++y)
    for (size_t x = 0; x < range.global[0]; ++x) {
      cl_int *mine = &out[8 * (y * range.global[0] + x)];
      size_t groupX = x / range.local[0], groupY = y / range.local[1];
      auto sizeOf = [&](size_t group, size_t dim) {
        return std::min(range.local[dim], range.global[dim] - group * range.local[dim]);
      };
      mine[0] = static_cast<cl_int>(x + range.offset[0]);
      mine[1] = static_cast<cl_int>(y + range.offset[1]);
      mine[2] = static_cast<cl_int>(x % range.local[0]);
      mine[3] = static_cast<cl_int>(y % range.local[1]);
      mine[4] = static_cast<cl_int>(sizeOf(groupX, 0));
      mine[5] = static_cast<cl_int>(sizeOf(groupY, 1));
      mine[6] = static_cast<cl_int>(range.local[0] * 1000 + range.local[1]);
      mine[7] = static_cast<cl_int>(groupX * 1000 + groupY);
    }
  return out;
}

TEST_F(SpecializationTest, OneKernelAtManyLocalSizesAndOffsets) {
  Kernel kernel = buildKernel(kGeometrySource, "geometry", "-cl-std=CL3.0");
  ASSERT_TRUE(kernel);
  bool nonUniform = supportsOpenCLC(device_, 2, 0);
  const Range2D ranges[] = {
      {{64, 4}, {64, 1}, {0, 0}},  {{64, 4}, {16, 2}, {0, 0}},  {{64, 4}, {1, 4}, {0, 0}},
      {{64, 4}, {32, 4}, {5, 7}},  {{48, 3}, {48, 3}, {0, 0}},  {{96, 2}, {96, 1}, {0, 0}},
      {{100, 3}, {20, 3}, {0, 0}}, {{100, 3}, {20, 3}, {3, 0}}, {{21, 5}, {7, 5}, {0, 0}},
      {{100, 5}, {64, 2}, {0, 0}}, {{70, 9}, {33, 4}, {1, 1}},  {{17, 1}, {17, 1}, {0, 0}},
  };
  for (const Range2D &range : ranges) {
    bool uniform = range.global[0] % range.local[0] == 0 && range.global[1] % range.local[1] == 0;
    if (!uniform && !nonUniform)
      continue;
    std::vector<cl_int> expected = geometryReference(range);
    Mem out = bufferWith(std::vector<cl_int>(expected.size(), -1));
    ASSERT_TRUE(setArgs(kernel, out));
    ASSERT_TRUE(run(kernel, 2, range.global.data(), range.local.data(), range.offset.data()));
    EXPECT_TRUE(equalArrays(expected, read<cl_int>(out, expected.size())))
        << "global " << range.global[0] << "x" << range.global[1] << ", local " << range.local[0]
        << "x" << range.local[1] << ", offset " << range.offset[0] << "," << range.offset[1];
  }
}

TEST_F(SpecializationTest, ReductionWithBarriersAtEveryPowerOfTwo) {
  // The tree's trip count comes from get_local_size, a constant in each specialization.
  Kernel kernel = buildKernel(R"(
    kernel void sum(global const int *in, global int *out, local int *scratch) {
      size_t l = get_local_id(0);
      scratch[l] = in[get_global_id(0)];
      for (size_t step = get_local_size(0) / 2; step > 0; step /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < step) scratch[l] += scratch[l + step];
      }
      if (l == 0) out[get_group_id(0)] = scratch[0];
    })",
                              "sum");
  ASSERT_TRUE(kernel);
  const size_t global = 1024;
  std::vector<cl_int> in = Random(11).values<cl_int>(global);
  for (cl_int &value : in)
    value &= 0xffff;
  Mem input = bufferWith(in);
  size_t maxGroup = deviceInfo<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  for (size_t local = 1; local <= std::min<size_t>(global, maxGroup); local *= 2) {
    size_t groups = global / local;
    std::vector<cl_int> expected(groups, 0);
    for (size_t index = 0; index < global; ++index)
      expected[index / local] += in[index];
    Mem out = bufferWith(std::vector<cl_int>(groups, -1));
    ASSERT_TRUE(setArgs(kernel, input, out, LocalSize{local * sizeof(cl_int)}));
    ASSERT_TRUE(run1D(kernel, global, local));
    EXPECT_TRUE(equalArrays(expected, read<cl_int>(out, groups))) << "local size " << local;
  }
}

TEST_F(SpecializationTest, ProgramVariablesAreOneVariableForEveryKernelAndLocalSize) {
  if (!supportsOpenCLC(device_, 3, 0) ||
      deviceInfo<size_t>(device_, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) == 0)
    GTEST_SKIP() << "no program scope global variables";
  Program program = build(R"(
    global int total;
    global int table[4] = {1, 2, 3, 4};
    kernel void add(void) { atomic_add(&total, table[get_global_id(0) % 4]); }
    kernel void bump(void) { if (get_global_id(0) == 0) table[0] += 10; }
    kernel void fetch(global int *out) { out[0] = total; out[1] = table[0]; })",
                          "-cl-std=CL3.0");
  ASSERT_NE(nullptr, program.get());
  Kernel add = createKernel(program, "add"), bump = createKernel(program, "bump");
  Kernel fetch = createKernel(program, "fetch");
  ASSERT_TRUE(add && bump && fetch);
  int expectedTotal = 0, first = 1;
  // The same kernel at several local sizes: each size is a work-group function of its own.
  for (size_t local : {64, 16, 1, 8}) {
    ASSERT_TRUE(run1D(add, 64, local));
    expectedTotal += 16 * (first + 2 + 3 + 4);
    ASSERT_TRUE(run1D(bump, 8, local == 1 ? 1 : 8));
    first += 10;
  }
  Mem out = bufferWith(std::vector<cl_int>(2, -1));
  ASSERT_TRUE(setArgs(fetch, out));
  ASSERT_TRUE(run1D(fetch, 1, 1));
  EXPECT_TRUE(equalArrays(std::vector<cl_int>{expectedTotal, first}, read<cl_int>(out, 2)));
}

TEST_F(SpecializationTest, ProgramsBuiltAgainFromOneSourceKeepVariablesOfTheirOwn) {
  // The CPU device reuses the machine code of a specialization for a later program of the same
  // source: that code must still address the later program's own variables.
  if (!supportsOpenCLC(device_, 3, 0) ||
      deviceInfo<size_t>(device_, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) == 0)
    GTEST_SKIP() << "no program scope global variables";
  const char *source = R"(
    global int total;
    constant int weights[4] = {1, 2, 3, 4};
    kernel void add(global int *out) {
      atomic_add(&total, weights[get_local_id(0) % 4]);
      out[get_global_id(0)] = get_local_size(0) * 100 + get_local_id(0);
    }
    kernel void fetch(global int *out) { out[0] = total; })";
  std::vector<cl_int> totals;
  for (int round = 0; round < 3; ++round) {
    Program program = build(source, "-cl-std=CL3.0");
    ASSERT_NE(nullptr, program.get());
    Kernel add = createKernel(program, "add"), fetch = createKernel(program, "fetch");
    ASSERT_TRUE(add && fetch);
    // Two shapes, the second only from round 1 on: cached and new code in one program.
    std::vector<size_t> locals = {8};
    if (round > 0)
      locals.push_back(round == 1 ? 4 : 16);
    int expected = 0;
    for (size_t local : locals) {
      Mem out = bufferWith(std::vector<cl_int>(32, -1));
      ASSERT_TRUE(setArgs(add, out));
      ASSERT_TRUE(run1D(add, 32, local));
      std::vector<cl_int> ids(32);
      for (size_t i = 0; i < 32; ++i)
        ids[i] = static_cast<cl_int>(local * 100 + i % local);
      EXPECT_TRUE(equalArrays(ids, read<cl_int>(out, 32))) << "round " << round;
      for (size_t i = 0; i < 32; ++i)
        expected += static_cast<int>(i % local % 4) + 1;
    }
    Mem out = bufferWith(std::vector<cl_int>(1, -1));
    ASSERT_TRUE(setArgs(fetch, out));
    ASSERT_TRUE(run1D(fetch, 1, 1));
    EXPECT_EQ(expected, read<cl_int>(out, 1)[0]) << "round " << round;
  }
}

TEST_F(SpecializationTest, KernelsRunConcurrentlyFromManyQueuesAtNewLocalSizes) {
  // Several threads compile specializations of one kernel at once.
  Kernel kernel = buildKernel(R"(
    kernel void scale(global int *data, int factor) {
      data[get_global_id(0)] *= factor + (int)get_local_size(0) - (int)get_local_size(0);
    })",
                              "scale");
  ASSERT_TRUE(kernel);
  constexpr size_t kThreads = 4, kItems = 240;
  std::vector<std::thread> threads;
  std::array<bool, kThreads> correct{};
  for (size_t thread = 0; thread < kThreads; ++thread)
    threads.emplace_back([&, thread] {
      cl_int error = CL_SUCCESS;
      Kernel own(clCloneKernel(kernel, &error));
      Queue queue(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
      std::vector<cl_int> data(kItems, static_cast<cl_int>(thread + 1));
      Mem buffer(clCreateBuffer(context_, CL_MEM_COPY_HOST_PTR, kItems * sizeof(cl_int),
                                data.data(), &error));
      cl_int factor = 3;
      bool ok = own && queue && buffer && setArgs(own, buffer, factor);
      for (size_t local : {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30, 40, 48, 60, 80}) {
        size_t global = kItems;
        ok = ok && clEnqueueNDRangeKernel(queue, own, 1, nullptr, &global, &local, 0, nullptr,
                                          nullptr) == CL_SUCCESS;
      }
      ok = ok && clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, kItems * sizeof(cl_int),
                                     data.data(), 0, nullptr, nullptr) == CL_SUCCESS;
      cl_int expected = static_cast<cl_int>(thread + 1);
      for (int round = 0; round < 18; ++round)
        expected *= 3;
      for (cl_int value : data)
        ok = ok && value == expected;
      correct[thread] = ok;
    });
  for (std::thread &thread : threads)
    thread.join();
  for (size_t thread = 0; thread < kThreads; ++thread)
    EXPECT_TRUE(correct[thread]) << "thread " << thread;
}

} // namespace
