// The local size Kiln picks when an NDRange gives none (runtime/scheduling/local_size.hpp): it
// divides the global size, keeps every compute unit busy where the range allows, never goes
// below the kernel's preferred multiple for the sake of more work-groups, and takes the first
// dimension first.
#include "runtime/scheduling/local_size.hpp"

#include <gtest/gtest.h>

#include <array>

namespace kiln {
namespace {

using Size = std::array<size_t, 3>;

LocalSizeLimits gpuLimits() {
  return {1024, 1024, {1024, 1024, 64}, 132, 32};
}
LocalSizeLimits cpuLimits() {
  return {4096, 256, {4096, 4096, 4096}, 2, 8};
}

size_t groups(unsigned workDim, const Size &global, const Size &local) {
  size_t count = 1;
  for (unsigned dim = 0; dim < workDim; ++dim)
    count *= global[dim] / local[dim];
  return count;
}

TEST(LocalSize, SmallGpuRangeKeepsWholeWarps) {
  // 256 work-items cannot fill 132 multiprocessors: groups of one warp, not of one work-item.
  EXPECT_EQ((Size{32, 1, 1}), chooseLocalSize(1, {256, 1, 1}, gpuLimits()));
  EXPECT_EQ((Size{32, 1, 1}), chooseLocalSize(1, {32, 1, 1}, gpuLimits()));
}

TEST(LocalSize, LargeRangeTakesTheTargetSize) {
  EXPECT_EQ((Size{1024, 1, 1}), chooseLocalSize(1, {1 << 24, 1, 1}, gpuLimits()));
  EXPECT_EQ((Size{256, 1, 1}), chooseLocalSize(1, {1 << 20, 1, 1}, cpuLimits()));
}

TEST(LocalSize, MidSizeRangeMakesEnoughGroups) {
  Size local = chooseLocalSize(1, {65536, 1, 1}, gpuLimits());
  EXPECT_GE(groups(1, {65536, 1, 1}, local), 132u * 4);
  EXPECT_GE(local[0], 32u);
  EXPECT_EQ((Size{8, 1, 1}), chooseLocalSize(1, {64, 1, 1}, cpuLimits()));
  EXPECT_EQ((Size{8, 1, 1}), chooseLocalSize(1, {16, 1, 1}, cpuLimits()));
}

TEST(LocalSize, SizesWithFewDivisors) {
  EXPECT_EQ((Size{1, 1, 1}), chooseLocalSize(1, {257, 1, 1}, gpuLimits())); // a prime
  Size local = chooseLocalSize(1, {3 * 97, 1, 1}, gpuLimits());
  EXPECT_EQ(0u, (3 * 97) % local[0]);
}

TEST(LocalSize, TwoDimensionsShrinkTheLastFirst) {
  // Rows of one warp, not columns.
  EXPECT_EQ((Size{32, 1, 1}), chooseLocalSize(2, {64, 64, 1}, gpuLimits()));
  EXPECT_EQ((Size{64, 4, 1}), chooseLocalSize(2, {64, 64, 1}, cpuLimits()));
  EXPECT_EQ((Size{960, 1, 1}), chooseLocalSize(2, {1920, 1080, 1}, gpuLimits()));
}

TEST(LocalSize, EveryPickDividesTheRangeAndRespectsTheLimits) {
  for (size_t x : {1, 2, 7, 30, 96, 100, 1000, 1920, 4096, 99991})
    for (size_t y : {1, 3, 16, 1080}) {
      for (const LocalSizeLimits &limits : {gpuLimits(), cpuLimits()}) {
        Size global{x, y, 1};
        Size local = chooseLocalSize(2, global, limits);
        EXPECT_EQ(0u, x % local[0]) << x << "x" << y;
        EXPECT_EQ(0u, y % local[1]) << x << "x" << y;
        EXPECT_LE(local[0] * local[1], limits.maxWorkGroupSize);
      }
    }
}

TEST(LocalSize, EmptyRange) {
  EXPECT_EQ((Size{1, 1, 1}), chooseLocalSize(2, {0, 16, 1}, gpuLimits()));
}

} // namespace
} // namespace kiln
