// Atomic adds and subs of local counters whose addresses differ from work-item to work-item, as
// a histogram makes them: runs of equal bins (neighbouring work-items in one SIMD group adding to
// one counter, each after the other) and scattered ones, work-items that skip (divergent
// branches, a narrower last work-group), increments, decrements and adds of a value, 32- and
// 64-bit counters. Every count is the host's, exactly. CI runs these again with the vectorizer
// off, where each work-item is its own SIMD group.
#include "cl_test.hpp"

#include <random>

using namespace cltest;

namespace {

const char *kSource = R"(
  #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
  // Each work-group counts its share of `data` into 64 local bins three ways, then adds them to
  // the global bins: `up` counts every byte, `down` subtracts two for each odd byte, and
  // `weighted` adds `weight` for the bytes the work-item does not skip.
  kernel void countBins(global const uchar *data, uint length, int weight, global int *up,
                        global int *down, global int *weighted) {
    local int upCounts[64], downCounts[64], weightedCounts[64];
    for (uint bin = get_local_id(0); bin < 64; bin += get_local_size(0)) {
      upCounts[bin] = 0;
      downCounts[bin] = 0;
      weightedCounts[bin] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < length; i += get_global_size(0)) {
      uchar byte = data[i];
      atomic_inc(&upCounts[byte & 63]);
      if (byte % 2 == 1)
        atomic_sub(&downCounts[(byte >> 1) & 63], 2);
      if (byte % 5 != 0)
        atomic_add(&weightedCounts[(byte * 7) & 63], weight);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint bin = get_local_id(0); bin < 64; bin += get_local_size(0)) {
      atomic_add(&up[bin], upCounts[bin]);
      atomic_add(&down[bin], downCounts[bin]);
      atomic_add(&weighted[bin], weightedCounts[bin]);
    }
  }
  // 64-bit local counters, decremented.
  kernel void countLongBins(global const uchar *data, uint length, global long *bins) {
    local long counts[16];
    for (uint bin = get_local_id(0); bin < 16; bin += get_local_size(0))
      counts[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      atom_dec(&counts[data[i] % 16]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint bin = get_local_id(0); bin < 16; bin += get_local_size(0))
      atom_add(&bins[bin], counts[bin]);
  })";

/// Bytes in runs of equal values (neighbouring work-items share bins) and then scattered ones.
std::vector<cl_uchar> histogramData(size_t size) {
  std::vector<cl_uchar> data(size);
  std::mt19937 random(17);
  std::uniform_int_distribution<int> byte(0, 255), run(1, 40);
  size_t i = 0;
  while (i < size / 2) {
    cl_uchar value = static_cast<cl_uchar>(byte(random));
    for (int k = run(random); k > 0 && i < size / 2; --k)
      data[i++] = value;
  }
  for (; i < size; ++i)
    data[i] = static_cast<cl_uchar>(byte(random));
  return data;
}

class SharedLocalCountersTest : public ClTest {};

TEST_F(SharedLocalCountersTest, BinsCountLikeTheHost) {
  Kernel kernel = buildKernel(kSource, "countBins", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  const size_t length = 100003;
  std::vector<cl_uchar> data = histogramData(length);
  const cl_int weight = 3;
  std::vector<cl_int> up(64, 0), down(64, 0), weighted(64, 0);
  for (cl_uchar byte : data) {
    ++up[byte & 63];
    if (byte % 2 == 1)
      down[(byte >> 1) & 63] -= 2;
    if (byte % 5 != 0)
      weighted[(byte * 7) & 63] += weight;
  }
  Mem input = bufferWith(data);
  for (auto [global, local] : {std::pair<size_t, size_t>{4096, 256}, {1000, 100}, {96, 96}}) {
    SCOPED_TRACE(std::to_string(global) + " work-items in groups of " + std::to_string(local));
    Mem upBins = bufferWith(std::vector<cl_int>(64, 0));
    Mem downBins = bufferWith(std::vector<cl_int>(64, 0));
    Mem weightedBins = bufferWith(std::vector<cl_int>(64, 0));
    ASSERT_TRUE(setArgs(kernel.get(), input.get(), static_cast<cl_uint>(length), weight,
                        upBins.get(), downBins.get(), weightedBins.get()));
    ASSERT_TRUE(run1D(kernel, global, local));
    EXPECT_TRUE(equalArrays(up, read<cl_int>(upBins, 64)));
    EXPECT_TRUE(equalArrays(down, read<cl_int>(downBins, 64)));
    EXPECT_TRUE(equalArrays(weighted, read<cl_int>(weightedBins, 64)));
  }
}

TEST_F(SharedLocalCountersTest, LongBinsCountDownLikeTheHost) {
  if (!hasExtension(device_, "cl_khr_int64_base_atomics"))
    GTEST_SKIP() << "no 64-bit atomics";
  Kernel kernel = buildKernel(kSource, "countLongBins", "-cl-std=CL2.0");
  ASSERT_TRUE(kernel);
  const size_t length = 50000;
  std::vector<cl_uchar> data = histogramData(length);
  std::vector<cl_long> expected(16, 0);
  for (cl_uchar byte : data)
    --expected[byte % 16];
  Mem input = bufferWith(data);
  Mem bins = bufferWith(std::vector<cl_long>(16, 0));
  ASSERT_TRUE(setArgs(kernel.get(), input.get(), static_cast<cl_uint>(length), bins.get()));
  ASSERT_TRUE(run1D(kernel, 2048, 128));
  EXPECT_TRUE(equalArrays(expected, read<cl_long>(bins, 16)));
}

} // namespace
