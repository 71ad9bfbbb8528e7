// The CPU device runs consecutive work-items in the lanes of vectors (the work-item vectorizer).
// These kernels stress what that must get right, each against a host reference: divergent
// branches and loops, early returns, barriers in uniform loops with divergent code around them,
// atomics from every lane, gathers and scatters at the ends of buffers, private arrays, odd and
// non-uniform work-group sizes, the integer, floating-point and vector types, and the builtin
// families. The same kernels must give the same bits with vectorization off (KILN_VECTORIZE=0)
// and at every SIMD width (KILN_SIMD_WIDTH); CI also runs the whole suite with it off.
#include "cl_test.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

using namespace cltest;

namespace {

class VectorizerTest : public ClTest {
protected:
  size_t maxGroup() { return deviceInfo<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE); }

  /// Runs a kernel `one(global const int *in, global int *out, int n)` over `global` items in
  /// groups of `local` and returns `out` (initialized to -7, so unwritten elements show).
  std::vector<cl_int> runOneToOne(const std::string &source, const std::vector<cl_int> &in,
                                  size_t global, size_t local, const std::string &options = "") {
    Kernel kernel = buildKernel(source, "one", options);
    if (!kernel)
      return {};
    Mem input = bufferWith(in);
    Mem output = bufferWith(std::vector<cl_int>(in.size(), -7));
    cl_int n = static_cast<cl_int>(in.size());
    EXPECT_TRUE(setArgs(kernel, input, output, n));
    EXPECT_TRUE(run1D(kernel, global, local));
    return read<cl_int>(output, in.size());
  }

  /// Runs a kernel of kGridStrideSums over kGridStrideGroups work-groups of `local` and checks
  /// each group's sum against the host's; `what` names the kernel in failures.
  void expectGridStrideSums(cl_kernel kernel, size_t local, const std::string &what);
};

std::vector<cl_int> sample(size_t count, uint64_t seed, int range = 1000) {
  Random random(seed);
  std::vector<cl_int> values(count);
  for (cl_int &value : values)
    value =
        static_cast<cl_int>(static_cast<int64_t>(random.next() % (2 * uint64_t(range))) - range);
  return values;
}

// ---------------------------------------------------------------------------------------------
// Control flow, over odd and non-uniform work-group sizes

const char *kDivergentSource = R"(
  kernel void one(global const int *in, global int *out, int n) {
    int i = get_global_id(0);
    if (i >= n) return;                  // early exit of the lanes past the end
    int x = in[i], r;
    if (x < 0) {                         // divergent if / else if / else
      r = -x;
      if (x % 3 == 0) r += 1000;         // nested
    } else if (x % 2) {
      r = 0;
      for (int k = 0; k < x % 23; ++k) { // divergent trip count
        if (k == 17) break;              // divergent break
        if (k % 4 == 1) continue;
        r += k * x;
      }
    } else {
      r = x;
      while (r > 10 && r % 7) r /= 2;    // divergent condition of a while loop
    }
    out[i] = r + get_local_id(0) * 0;
  })";

cl_int divergentReference(cl_int x) {
  cl_int r;
  if (x < 0) {
    r = -x;
    if (x % 3 == 0)
      r += 1000;
  } else if (x % 2) {
    r = 0;
    for (int k = 0; k < x % 23; ++k) {
      if (k == 17)
        break;
      if (k % 4 == 1)
        continue;
      r += k * x;
    }
  } else {
    r = x;
    while (r > 10 && r % 7)
      r /= 2;
  }
  return r;
}

struct Sizes {
  size_t items, global, local;
};

class DivergenceTest : public VectorizerTest, public ::testing::WithParamInterface<Sizes> {};

TEST_P(DivergenceTest, EveryWorkItemTakesItsOwnPath) {
  Sizes sizes = GetParam();
  if (sizes.local > maxGroup())
    GTEST_SKIP() << "local size " << sizes.local << " is over the device's maximum";
  std::vector<cl_int> in = sample(sizes.items, sizes.items);
  std::string options = sizes.global % sizes.local ? "-cl-std=CL3.0" : "";
  std::vector<cl_int> out = runOneToOne(kDivergentSource, in, sizes.global, sizes.local, options);
  std::vector<cl_int> expected(in.size());
  std::transform(in.begin(), in.end(), expected.begin(), divergentReference);
  EXPECT_TRUE(equalArrays(expected, out));
}

// Local sizes 1, 3, 17 and 1000 (lanes past the end of each group masked off), global sizes
// past the data (early returns), and non-uniform last groups (OpenCL C 3.0).
INSTANTIATE_TEST_SUITE_P(Sizes, DivergenceTest,
                         ::testing::Values(Sizes{1, 1, 1}, Sizes{3, 3, 3}, Sizes{100, 102, 17},
                                           Sizes{1000, 1000, 1000}, Sizes{999, 1000, 8},
                                           Sizes{500, 500, 64}, Sizes{777, 777, 100},
                                           Sizes{250, 260, 13}),
                         [](const auto &info) {
                           return std::to_string(info.param.items) + "_" +
                                  std::to_string(info.param.global) + "_" +
                                  std::to_string(info.param.local);
                         });

TEST_F(VectorizerTest, EverySimdWidthGivesTheSameResults) {
  std::vector<cl_int> in = sample(1001, 3);
  std::vector<cl_int> expected(in.size());
  std::transform(in.begin(), in.end(), expected.begin(), divergentReference);
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt); // also when CI turns it off
  for (const char *width : {"2", "4", "8", "16", "32", "64", "128"}) {
    ScopedEnvironment simd("KILN_SIMD_WIDTH", width);
    Kernel kernel = buildKernel(kDivergentSource, "one");
    ASSERT_TRUE(kernel);
    size_t multiple = 0;
    ASSERT_CL_SUCCESS(clGetKernelWorkGroupInfo(kernel, device_,
                                               CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                               sizeof multiple, &multiple, nullptr));
    if (isKilnCpuDevice())
      EXPECT_EQ(std::strtoul(width, nullptr, 10), multiple)
          << "the SIMD group is the preferred multiple";
    EXPECT_TRUE(equalArrays(expected, runOneToOne(kDivergentSource, in, 1001, 91)))
        << "SIMD width " << width;
  }
}

TEST_F(VectorizerTest, VectorizationOffGivesTheSameResults) {
  std::vector<cl_int> in = sample(300, 5);
  std::vector<cl_int> vectorized = runOneToOne(kDivergentSource, in, 300, 30);
  ScopedEnvironment off("KILN_VECTORIZE", "0");
  EXPECT_TRUE(equalArrays(vectorized, runOneToOne(kDivergentSource, in, 300, 30)));
}

TEST_F(VectorizerTest, UniformLoopsAroundDivergentLoops) {
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0), total = 0;
      for (int row = 0; row < 5; ++row) {              // uniform
        for (int k = 0; k <= (in[i] & 15) + row; ++k)  // divergent
          total += (k ^ row) + in[(i + k) % n];        // gathers
        if (total > 5000) total -= 5000;               // divergent, no loop
      }
      out[i] = total;
    })";
  std::vector<cl_int> in = sample(257, 9);
  std::vector<cl_int> expected(in.size());
  int n = static_cast<int>(in.size());
  for (int i = 0; i < n; ++i) {
    int total = 0;
    for (int row = 0; row < 5; ++row) {
      for (int k = 0; k <= (in[i] & 15) + row; ++k)
        total += (k ^ row) + in[(i + k) % n];
      if (total > 5000)
        total -= 5000;
    }
    expected[i] = total;
  }
  EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, 257, 257 <= maxGroup() ? 257 : 1)));
  // The automatic choice leaves this kernel scalar (its divergent loop gathers): force the
  // vectorizer to check that it handles the pattern.
  ScopedEnvironment forced("KILN_SIMD_WIDTH", "16");
  EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, 257, 257 <= maxGroup() ? 257 : 1)));
}

// Branches and switches on values the same in every work-item stay branches in the vectorized
// code (only the side taken runs), with divergent code inside their sides and around them: an
// if-else-if chain whose sides all end where the chain does, a switch with cases that share a
// block and one that falls through, a loop in a side, a uniform branch inside a divergent one,
// and values that the sides hand on through phis (each side's, and the lanes' own).
cl_int uniformBranchesReference(cl_int x, cl_int mode, cl_int lid) {
  cl_int r = x;
  if (mode > 3) { // uniform, around divergent code
    r = x < 0 ? -x : x * 3;
    if (mode > 5) // uniform, nested
      r += mode;
  } else if (mode == 2) {
    for (int k = 0; k < mode + 1; ++k) // a uniform loop in a side
      r += k * (x & 7);
  } else {
    r -= 11;
  }
  switch (mode % 5) { // uniform switch
  case 0:
  case 3: // cases sharing a block
    r ^= 0x55;
    break;
  case 1:
    r += 100; // falls through
    [[fallthrough]];
  case 2:
    r *= 2;
    break;
  default:
    r -= lid;
  }
  if (x & 1) { // divergent, around a uniform branch
    if (mode & 1)
      r += 1000;
    else
      r -= 1000;
  }
  return r;
}

TEST_F(VectorizerTest, UniformBranchesAndSwitchesStayBranchesAroundDivergentCode) {
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0), mode = n % 8, lid = get_local_id(0);
      int x = in[i], r = x;
      if (mode > 3) {
        r = x < 0 ? -x : x * 3;
        if (mode > 5)
          r += mode;
      } else if (mode == 2) {
        for (int k = 0; k < mode + 1; ++k)
          r += k * (x & 7);
      } else {
        r -= 11;
      }
      switch (mode % 5) {
      case 0:
      case 3:
        r ^= 0x55;
        break;
      case 1:
        r += 100;
      case 2:
        r *= 2;
        break;
      default:
        r -= lid;
      }
      if (x & 1) {
        if (mode & 1)
          r += 1000;
        else
          r -= 1000;
      }
      out[i] = r;
    })";
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt); // also when CI turns it off
  // The kernel reads its mode from n, the number of items; the last work-group is narrower.
  for (int mode = 0; mode < 8; ++mode) {
    size_t items = 256 + static_cast<size_t>(mode);
    std::vector<cl_int> in = sample(items, 70 + mode);
    for (size_t local : {16u, 23u, 64u}) {
      std::vector<cl_int> expected(items);
      for (size_t i = 0; i < items; ++i)
        expected[i] = uniformBranchesReference(in[i], mode, static_cast<cl_int>(i % local));
      EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, items, local, "-cl-std=CL3.0")))
          << "mode " << mode << ", work-groups of " << local;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Barriers, local memory and atomics

TEST_F(VectorizerTest, BarriersInUniformLoopsWithDivergentCodeAround) {
  // A tree sum in local memory over a group size that is not a power of two.
  Kernel kernel = buildKernel(R"(
    kernel void sums(global const int *in, global int *out, local int *scratch) {
      size_t lid = get_local_id(0), size = get_local_size(0);
      scratch[lid] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t width = 1; width < size; width *= 2) {
        int mine = 0;
        if (lid % (2 * width) == 0 && lid + width < size)
          mine = scratch[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += mine;
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (lid == 0) out[get_group_id(0)] = scratch[0];
    })",
                              "sums");
  ASSERT_TRUE(kernel);
  constexpr size_t kGroup = 23, kGroups = 11;
  std::vector<cl_int> in = sample(kGroup * kGroups, 11);
  Mem input = bufferWith(in);
  Mem out = createBuffer(CL_MEM_READ_WRITE, kGroups * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, input, out, LocalSize{kGroup * sizeof(cl_int)}));
  ASSERT_TRUE(run1D(kernel, kGroup * kGroups, kGroup));
  std::vector<cl_int> expected(kGroups);
  for (size_t group = 0; group < kGroups; ++group)
    expected[group] =
        std::accumulate(in.begin() + group * kGroup, in.begin() + (group + 1) * kGroup, 0);
  EXPECT_TRUE(equalArrays(expected, read<cl_int>(out, kGroups)));
}

TEST_F(VectorizerTest, LocalIdValuesUsedAcrossBarriers) {
  // The local id, the global id, `&tile[lid]` and arithmetic on them are used after barriers,
  // in a loop with barriers and in a select: the work-group function recomputes them there
  // instead of keeping them in private storage, and must find the same values.
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      local int tile[1024];
      int lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);
      int mirror = size - 1 - lid;
      local int *mine = &tile[lid];
      *mine = gid < n ? in[gid] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      int sum = tile[mirror];
      for (int step = 1; step < 4; ++step) {
        barrier(CLK_LOCAL_MEM_FENCE);
        *mine += step * lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        sum += tile[(mirror + step) % size];
      }
      if (gid < n)
        out[gid] = sum + ((lid & 1) ? gid : -gid);
    })";
  const size_t n = 3001;
  std::vector<cl_int> in = sample(n, 23);
  for (size_t local : {1u, 3u, 17u, 64u, 100u, 1000u}) {
    if (local > maxGroup())
      continue;
    size_t global = (n + local - 1) / local * local;
    std::vector<cl_int> expected(n);
    for (size_t first = 0; first < global; first += local) {
      auto initial = [&](size_t l) { return first + l < n ? in[first + l] : 0; };
      // tile after step s: its initial value plus l * (1 + ... + s)
      auto tileAfter = [&](size_t l, int steps) {
        return initial(l) + static_cast<cl_int>(l) * steps * (steps + 1) / 2;
      };
      for (size_t l = 0; l < local && first + l < n; ++l) {
        size_t mirror = local - 1 - l;
        cl_int sum = tileAfter(mirror, 0);
        for (int step = 1; step < 4; ++step)
          sum += tileAfter((mirror + step) % local, step);
        cl_int gid = static_cast<cl_int>(first + l);
        expected[first + l] = sum + ((l & 1) ? gid : -gid);
      }
    }
    EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, global, local)))
        << "work-groups of " << local;
  }
}

TEST_F(VectorizerTest, VectorTypedPrivateArraysBuiltByComponentAfterABarrier) {
  // CLBlast's fast transpose: a tile of float2 or float4 in local memory, then, after the
  // barrier, private arrays of vectors filled one component at a time. The vectorizer puts the
  // components' addresses into those arrays beside the arrays, in the prologue; with a barrier
  // each SIMD group's arrays are slots of the private storage, which those addresses must name
  // too (they named one copy on the stack that every SIMD group shared, and CLBlast's GEMM
  // tests failed).
  for (int width : {2, 4}) {
    std::string type = "float" + std::to_string(width);
    // results[a].sb = vpm[b].sa, component by component, as CLBlast writes it
    std::string transpose;
    for (int a = 0; a < width; ++a)
      for (int b = 0; b < width; ++b)
        transpose += "results[" + std::to_string(a) + "].s" + std::to_string(b) + " = vpm[" +
                     std::to_string(b) + "].s" + std::to_string(a) + "; ";
    std::string source = "#define WPT " + std::to_string(width) + "\n#define T " + type +
                         "\n#define TRANSPOSE " + transpose + R"(
      kernel __attribute__((reqd_work_group_size(8, 8, 1)))
      void transpose(int ld, global const T *src, global T *dst, float alpha) {
        local T tile[WPT * 8][8];
        for (int w = 0; w < WPT; ++w) {
          int one = get_group_id(1) * 8 + get_local_id(0);
          int two = (get_group_id(0) * 8 + get_local_id(1)) * WPT + w;
          tile[get_local_id(0) * WPT + w][get_local_id(1)] = src[two * (ld / WPT) + one];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        T vpm[WPT], results[WPT];
        for (int w = 0; w < WPT; ++w)
          vpm[w] = tile[get_local_id(1) * WPT + w][get_local_id(0)];
        TRANSPOSE
        for (int w = 0; w < WPT; ++w) {
          int one = get_group_id(0) * 8 + get_local_id(0);
          int two = (get_group_id(1) * 8 + get_local_id(1)) * WPT + w;
          dst[two * (ld / WPT) + one] = alpha * results[w];
        }
      })";
    // Forced: the private arrays' component accesses are scatters, which keep the float4 kernel
    // scalar at the automatic width.
    ScopedEnvironment simd("KILN_SIMD_WIDTH", "8");
    Kernel kernel = buildKernel(source, "transpose");
    ASSERT_NE(nullptr, kernel.get()) << type;
    const cl_int n = 128;
    std::vector<cl_float> in(n * n);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<cl_float>(i % 1000) * 0.5f + 1.0f;
    Mem input = bufferWith(in), output = bufferWith(std::vector<cl_float>(n * n, -1.0f));
    ASSERT_TRUE(setArgs(kernel, n, input, output, 2.0f));
    size_t global[2] = {size_t(n / width), size_t(n / width)}, local[2] = {8, 8};
    ASSERT_TRUE(run(kernel, 2, global, local));
    std::vector<cl_float> expected(n * n);
    for (cl_int row = 0; row < n; ++row)
      for (cl_int column = 0; column < n; ++column)
        expected[column * n + row] = 2.0f * in[row * n + column];
    EXPECT_TRUE(equalArrays(expected, read<cl_float>(output, expected.size()))) << type;
  }
}

TEST_F(VectorizerTest, LocalAndGlobalAtomicsFromEveryLane) {
  // Four bins: most lanes of a SIMD group hit the same one at once.
  Kernel kernel = buildKernel(R"(
    kernel void histogram(global const int *in, global int *bins, global int *tickets,
                          volatile global int *spin, local int *local_bins) {
      size_t lid = get_local_id(0);
      if (lid < 4) local_bins[lid] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      int bin = in[get_global_id(0)] & 3;
      atomic_inc(&local_bins[bin]);
      tickets[get_global_id(0)] = atomic_add(&bins[4], 1);   // every ticket once
      int old, seen = *spin;
      do { old = seen; seen = atomic_cmpxchg(spin, old, old + bin); } while (seen != old);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid < 4) atomic_add(&bins[lid], local_bins[lid]);
    })",
                              "histogram");
  ASSERT_TRUE(kernel);
  constexpr size_t kItems = 600, kGroup = 40;
  std::vector<cl_int> in = sample(kItems, 13);
  Mem input = bufferWith(in);
  Mem bins = bufferWith(std::vector<cl_int>(5, 0));
  Mem tickets = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
  Mem spin = bufferWith(std::vector<cl_int>{0});
  ASSERT_TRUE(setArgs(kernel, input, bins, tickets, spin, LocalSize{4 * sizeof(cl_int)}));
  ASSERT_TRUE(run1D(kernel, kItems, kGroup));
  std::vector<cl_int> expected(5, 0);
  cl_int spun = 0;
  for (cl_int value : in) {
    ++expected[value & 3];
    spun += value & 3;
  }
  expected[4] = kItems;
  EXPECT_TRUE(equalArrays(expected, read<cl_int>(bins, 5)));
  std::vector<cl_int> seen = read<cl_int>(tickets, kItems);
  std::sort(seen.begin(), seen.end());
  std::vector<cl_int> all(kItems);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_TRUE(equalArrays(all, seen)) << "each ticket handed out once";
  EXPECT_EQ(spun, read<cl_int>(spin, 1)[0]);
}

// ---------------------------------------------------------------------------------------------
// Memory access patterns

TEST_F(VectorizerTest, GathersAndScattersAtTheEndsOfBuffers) {
  // Buffers of exactly n elements; the sanitizer builds catch any access past them.
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0);
      if (i < n) out[n - 1 - i] = in[(i * 7) % n] + in[i];  // reversed scatter, strided gather
    })";
  for (size_t n : {1u, 15u, 16u, 17u, 31u, 65u}) {
    std::vector<cl_int> in = sample(n, n);
    std::vector<cl_int> expected(n);
    for (size_t i = 0; i < n; ++i)
      expected[n - 1 - i] = in[(i * 7) % n] + in[i];
    size_t global = (n + 15) / 16 * 16;
    EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, global, 16, "-cl-std=CL3.0")))
        << n << " elements";
  }
}

TEST_F(VectorizerTest, GridStrideLoopsWithFullAndPartialLaneMasks) {
  // The loop's lanes are all active until its last trips, which run with some lanes done: its
  // consecutive loads and stores take the plain path, then the masked one, and must not touch
  // elements past n (the sanitizer builds check the buffers' ends).
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      for (int k = get_global_id(0); k < n; k += get_global_size(0))
        out[k] = in[k] * 3 + k;
    })";
  for (size_t n : {64u, 1000u, 4097u, 10000u}) {
    std::vector<cl_int> in = sample(n, n + 1);
    std::vector<cl_int> expected(n);
    for (size_t k = 0; k < n; ++k)
      expected[k] = in[k] * 3 + static_cast<cl_int>(k);
    for (size_t local : {16u, 64u, 256u})
      EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, 1024, local)))
          << n << " elements, work-groups of " << local;
  }
}

TEST_F(VectorizerTest, GridStrideLoopsRunInSimdGroupsAtLeastAsWideAsOtherLoops) {
  // A loop that jumps by the launch's width reads a few lines of each page: wider SIMD groups
  // read longer runs of each, where the registers leave room (work_item_vectorizer.cpp).
  const char *source = R"(
    kernel void gridStride(global const float *in, global float *out, uint n) {
      float sum = 0.0f;
      for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
      out[get_global_id(0)] = sum;
    }
    kernel void fixedStride(global const float *in, global float *out, uint n) {
      float sum = 0.0f;
      for (uint i = get_global_id(0); i < n; i += 4096)
        sum += in[i];
      out[get_global_id(0)] = sum;
    })";
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt);
  ScopedEnvironment automatic("KILN_SIMD_WIDTH", std::nullopt);
  const size_t local = 256;
  auto subGroupSize = [&](const char *name) {
    Kernel kernel = buildKernel(source, name);
    size_t size = 0;
    if (kernel)
      EXPECT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_,
                                                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                                sizeof local, &local, sizeof size, &size, nullptr));
    return size;
  };
  size_t gridStride = subGroupSize("gridStride"), fixedStride = subGroupSize("fixedStride");
  if (isKilnCpuDevice())
    EXPECT_GE(gridStride, fixedStride);
  // And the sums are right at that width.
  const cl_uint n = 4096 * 8 + 77;
  std::vector<cl_float> in(n);
  for (cl_uint i = 0; i < n; ++i)
    in[i] = static_cast<cl_float>(i % 17);
  const size_t global = 4096;
  Kernel kernel = buildKernel(source, "gridStride");
  ASSERT_TRUE(kernel);
  Mem input = bufferWith(in);
  Mem output = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_float));
  ASSERT_TRUE(setArgs(kernel, input, output, n));
  ASSERT_TRUE(run(kernel, 1, &global, &local));
  std::vector<cl_float> sums = read<cl_float>(output, global);
  for (size_t item = 0; item < global; ++item) {
    cl_float expected = 0;
    for (size_t i = item; i < n; i += global)
      expected += in[i];
    ASSERT_EQ(expected, sums[item]) << item;
  }
}

// Grid-stride sums of a float array, one per work-group of at most 256, through local memory
// and through sub-group reductions.
const char *kGridStrideSums = R"(
  kernel void inLocalMemory(global const float *in, global float *out, uint n) {
    local float sums[256];
    uint id = get_local_id(0);
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
      sum += in[i];
    sums[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = 128; step > 0; step /= 2) {
      if (id < step && id + step < get_local_size(0))
        sums[id] += sums[id + step];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (id == 0)
      out[get_group_id(0)] = sums[0];
  }
  kernel void inSubGroups(global const float *in, global float *out, uint n) {
    local float sums[256];
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
      sum += in[i];
    sum = sub_group_reduce_add(sum);
    if (get_sub_group_local_id() == 0)
      sums[get_sub_group_id()] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
      float total = 0.0f;
      for (uint s = 0; s < get_num_sub_groups(); ++s)
        total += sums[s];
      out[get_group_id(0)] = total;
    }
  })";

constexpr size_t kGridStrideGroups = 8;

void VectorizerTest::expectGridStrideSums(cl_kernel kernel, size_t local, const std::string &what) {
  const size_t global = local * kGridStrideGroups;
  const cl_uint count = 256 * kGridStrideGroups * 16 + 77;
  std::vector<cl_float> in(count);
  std::vector<double> expected(kGridStrideGroups, 0.0);
  for (cl_uint i = 0; i < count; ++i) {
    in[i] = static_cast<cl_float>(i % 13);
    expected[(i % global) / local] += in[i];
  }
  Mem input = bufferWith(in);
  Mem output = createBuffer(CL_MEM_WRITE_ONLY, kGridStrideGroups * sizeof(cl_float));
  ASSERT_TRUE(setArgs(kernel, input, output, count));
  ASSERT_TRUE(run(kernel, 1, &global, &local));
  std::vector<cl_float> sums = read<cl_float>(output, kGridStrideGroups);
  for (size_t group = 0; group < kGridStrideGroups; ++group)
    EXPECT_NEAR(expected[group], sums[group], 1e-4 * expected[group])
        << what << " in work-groups of " << local << ", group " << group;
}

TEST_F(VectorizerTest, SubGroupReductionsRunAsWideAsTheSameSumInLocalMemory) {
  // The width of a kernel's sub-groups is chosen before it knows its width: the library's
  // reduction then holds a branch for every width. The values that width leaves are what count
  // (pipeline.cpp), so the sub-group sum runs as wide as the sum through local memory.
  if (deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS) == 0)
    GTEST_SKIP() << "the device has no sub-groups";
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt);
  ScopedEnvironment automatic("KILN_SIMD_WIDTH", std::nullopt);
  const size_t local = 256;
  std::map<std::string, size_t> widths;
  for (const char *name : {"inLocalMemory", "inSubGroups"}) {
    Kernel kernel = buildKernel(kGridStrideSums, name, "-cl-std=CL3.0");
    ASSERT_TRUE(kernel) << name;
    EXPECT_CL_SUCCESS(
        clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                sizeof local, &local, sizeof widths[name], &widths[name], nullptr));
    expectGridStrideSums(kernel, local, name);
  }
  if (isKilnCpuDevice())
    EXPECT_GE(widths["inSubGroups"], widths["inLocalMemory"]);
}

TEST_F(VectorizerTest, SimdGroupsWiderThanSubGroupsHoldSeveral) {
  // Loops that read across pages take SIMD groups of 128 lanes with AVX-512; sub-groups stay at
  // most 64 wide (CL_DEVICE_SUB_GROUP_SIZES_INTEL), so such a group holds two. Forced here, so
  // that every target runs it.
  if (deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS) == 0)
    GTEST_SKIP() << "the device has no sub-groups";
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt);
  ScopedEnvironment wide("KILN_SIMD_WIDTH", "128");
  const size_t local = 256;
  for (const char *name : {"inLocalMemory", "inSubGroups"}) {
    Kernel kernel = buildKernel(kGridStrideSums, name, "-cl-std=CL3.0");
    ASSERT_TRUE(kernel) << name;
    size_t width = subGroupWidth(kernel, device_, local), multiple = 0;
    ASSERT_CL_SUCCESS(clGetKernelWorkGroupInfo(kernel, device_,
                                               CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                               sizeof multiple, &multiple, nullptr));
    if (isKilnCpuDevice()) {
      EXPECT_EQ(64u, width) << name << ": sub-groups at most 64 wide";
      // The sub-group sum runs its sub-groups in the lanes: one a SIMD group.
      EXPECT_EQ(std::string(name) == "inLocalMemory" ? 128u : 64u, multiple) << name;
    }
    // Also in work-groups narrower than a SIMD group, and not a multiple of it.
    for (size_t groupSize : {local, size_t{64}, size_t{192}})
      expectGridStrideSums(kernel, groupSize, name);
  }
}

TEST_F(VectorizerTest, ComputeLoopsOnFloat4TakeTheLanesTheirRegistersHold) {
  // clpeak's float4 chains: each work-item keeps 8 floats in registers. On an AVX-512 processor
  // the SIMD group's vectors take 512-bit registers even where the processor prefers 256-bit
  // vectors (Intel's Xeons), and 32 lanes of 8 floats fill half of its 32 registers: 8 chains
  // of multiply-adds in flight, which both FMA pipes need. Counted in 256-bit registers they
  // seemed to fill all of them, and the kernel ran in 16 lanes at half the speed.
  const char *source = R"(
    kernel void compute(global float *out, float m, int trips) {
      float4 x = (float4)(1.0f), y = (float4)(get_local_id(0));
      for (int trip = 0; trip < trips; ++trip) {
        x = mad(x, m, y); y = mad(y, m, -x); x = mad(x, m, y); y = mad(y, m, -x);
      }
      out[get_global_id(0)] = dot(y, (float4)(1.0f));
    })";
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt);
  ScopedEnvironment automatic("KILN_SIMD_WIDTH", std::nullopt);
  Kernel kernel = buildKernel(source, "compute");
  ASSERT_TRUE(kernel);
  const size_t local = 64;
  size_t lanes = subGroupWidth(kernel, device_, local);
#if defined(__x86_64__)
  if (isKilnCpuDevice() && __builtin_cpu_supports("avx512f"))
    EXPECT_GE(lanes, 32u);
#endif
  // The chains turn (x, y) by 60 degrees a step with m = 1: small integers, exact everywhere.
  const size_t global = 256;
  const int trips = 7;
  Mem output = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_float));
  ASSERT_TRUE(setArgs(kernel, output, 1.0f, trips));
  ASSERT_TRUE(run(kernel, 1, &global, &local));
  std::vector<cl_float> results = read<cl_float>(output, global);
  for (size_t item = 0; item < global; ++item) {
    float x = 1.0f, y = static_cast<float>(item % local);
    for (int trip = 0; trip < trips; ++trip)
      for (int step = 0; step < 2; ++step) {
        x = x + y;
        y = y - x;
      }
    ASSERT_EQ(4 * y, results[item]) << item;
  }
}

TEST_F(VectorizerTest, BranchesWhoseSimdGroupsHaveEveryLaneOrNoLaneActive) {
  // A band of `width` items out of every 64 takes the first side, the rest the second: whole
  // SIMD groups then have every lane or no lane active on each side (the full- and empty-mask
  // paths of their masked loads and stores), and the band's ends give partial masks when
  // `shift` is not a multiple of the SIMD width.
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0);
      if ((i + SHIFT) % 64 < WIDTH)
        out[i] = in[i] * 2;
      else
        out[i] = in[i] - 1;
    })";
  const size_t n = 4096;
  std::vector<cl_int> in = sample(n, 41);
  for (int shift : {0, 5})
    for (int width : {16, 21, 64}) {
      std::vector<cl_int> expected(n);
      for (size_t i = 0; i < n; ++i)
        expected[i] = (static_cast<int>(i) + shift) % 64 < width ? in[i] * 2 : in[i] - 1;
      std::string options =
          "-DSHIFT=" + std::to_string(shift) + " -DWIDTH=" + std::to_string(width);
      for (size_t local : {64u, 256u, 1024u})
        EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, n, local, options)))
            << "shift " << shift << ", width " << width << ", work-groups of " << local;
    }
}

TEST_F(VectorizerTest, StencilsWhoseLoadsAndStoresShareOneMask) {
  // The loads and the store past the border test share one mask: they run as one straight
  // stretch when every lane of a SIMD group is inside, and masked otherwise. The sum computed
  // between them is used after them, under a mask of its own. Items at `i % 64 < EDGE` are
  // border: with EDGE 0 only the ends are (full masks), with 1 every 64th item (partial masks
  // at 64 lanes, full ones at 16), with 64 all of them (empty masks).
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0);
      if (i % 64 < EDGE || i == 0 || i >= n - 1) {
        if (i < n) out[i] = -1;
        return;
      }
      int sum = in[i - 1] + 2 * in[i] + in[i + 1];
      out[i] = sum;
      if (sum > 0) out[i] = sum * 3;
    })";
  const size_t n = 1000;
  std::vector<cl_int> in = sample(n, 43);
  for (int edge : {0, 1, 5, 64}) {
    std::vector<cl_int> expected(n, -1);
    for (size_t i = 1; i + 1 < n; ++i)
      if (static_cast<int>(i % 64) >= edge) {
        cl_int sum = in[i - 1] + 2 * in[i] + in[i + 1];
        expected[i] = sum > 0 ? sum * 3 : sum;
      }
    for (size_t local : {1u, 17u, 64u, 100u, 1000u})
      EXPECT_TRUE(
          equalArrays(expected, runOneToOne(source, in, n, local,
                                            "-cl-std=CL3.0 -DEDGE=" + std::to_string(edge))))
          << "edge " << edge << ", work-groups of " << local;
  }
}

TEST_F(VectorizerTest, StoresOfManyWorkItemsToOneAddress) {
  // Every work-item of a group stores to the group's element, under a condition: the one
  // chosen by `chosen` (none when it is past the group's end), those whose flag is set, or all
  // of them when the group's number is even. One writer's value must arrive; with several, the
  // specification lets any of theirs stay, but never a value of a work-item that did not store.
  Kernel kernel = buildKernel(R"(
    kernel void writers(global const int *chosen, global const int *flags, global int *single,
                        global int *some, global int *every) {
      int i = get_global_id(0), group = get_group_id(0);
      if (get_local_id(0) == chosen[group]) single[group] = i * 3 + 1;
      if (flags[i]) some[group] = i;
      if (group % 2 == 0) every[group] = i;
    })",
                              "writers", "-cl-std=CL3.0");
  ASSERT_TRUE(kernel);
  const size_t n = 3000;
  std::vector<cl_int> flags = sample(n, 47, 2); // -2 .. 1: about half set
  for (cl_int &flag : flags)
    flag = flag > 0 || flag == -2;
  for (const char *width : {"", "4", "16", "64"}) {
    std::optional<ScopedEnvironment> simd;
    if (*width)
      simd.emplace("KILN_SIMD_WIDTH", width);
    for (size_t local : {1u, 17u, 64u, 100u, 1000u}) {
      size_t groups = (n + local - 1) / local;
      std::vector<cl_int> chosen(groups);
      for (size_t group = 0; group < groups; ++group) // first, last, past the end, in between
        chosen[group] = static_cast<cl_int>(
            std::array<size_t, 4>{0, local - 1, local, (group * 7) % local}[group % 4]);
      Mem chosenBuffer = bufferWith(chosen), flagBuffer = bufferWith(flags);
      Mem single = bufferWith(std::vector<cl_int>(groups, -7));
      Mem some = bufferWith(std::vector<cl_int>(groups, -7));
      Mem every = bufferWith(std::vector<cl_int>(groups, -7));
      ASSERT_TRUE(setArgs(kernel, chosenBuffer, flagBuffer, single, some, every));
      ASSERT_TRUE(run1D(kernel, n, local));
      std::vector<cl_int> singles = read<cl_int>(single, groups),
                          somes = read<cl_int>(some, groups), everys = read<cl_int>(every, groups);
      for (size_t group = 0; group < groups; ++group) {
        size_t first = group * local, end = std::min(n, first + local);
        size_t writer = first + static_cast<size_t>(chosen[group]);
        std::string where = "work-group " + std::to_string(group) + " of " + std::to_string(local) +
                            ", SIMD width '" + width + "'";
        EXPECT_EQ(writer < end ? static_cast<cl_int>(writer * 3 + 1) : -7, singles[group])
            << "one chosen writer, " << where;
        bool anyFlag = std::any_of(flags.begin() + first, flags.begin() + end,
                                   [](cl_int flag) { return flag != 0; });
        if (!anyFlag)
          EXPECT_EQ(-7, somes[group]) << "no writer, " << where;
        else
          EXPECT_TRUE(somes[group] >= static_cast<cl_int>(first) &&
                      somes[group] < static_cast<cl_int>(end) && flags[somes[group]] != 0)
              << "value " << somes[group] << " from a work-item that did not store, " << where;
        if (group % 2 == 0)
          EXPECT_TRUE(everys[group] >= static_cast<cl_int>(first) &&
                      everys[group] < static_cast<cl_int>(end))
              << "value " << everys[group] << " from outside the work-group, " << where;
        else
          EXPECT_EQ(-7, everys[group]) << "odd work-groups do not store, " << where;
      }
    }
  }
}

TEST_F(VectorizerTest, LocalCountersIncrementedByEveryLaneOrSome) {
  // A grid-stride loop of local increments (the suite's histogram): every lane increments in
  // its trips but the last, which some lanes sit out. Each increment's old value is kept, so
  // for each bin the old values must be 0, 1, ... once each, whatever the lanes' order.
  Kernel kernel = buildKernel(R"(
    kernel void count(global const int *in, int n, global int *bins, global int *olds) {
      local int counts[16];
      for (int b = get_local_id(0); b < 16; b += get_local_size(0))
        counts[b] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int i = get_global_id(0); i < n; i += get_global_size(0))
        olds[i] = atomic_inc(&counts[in[i] & 15]);
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int b = get_local_id(0); b < 16; b += get_local_size(0))
        bins[b] = counts[b];
    })",
                              "count");
  ASSERT_TRUE(kernel);
  for (size_t n : {50u, 1000u, 4099u})
    for (size_t local : {16u, 64u, 100u, 256u}) {
      std::vector<cl_int> in = sample(n, n + local);
      Mem input = bufferWith(in);
      Mem bins = bufferWith(std::vector<cl_int>(16, -7));
      Mem olds = bufferWith(std::vector<cl_int>(n, -7));
      ASSERT_TRUE(setArgs(kernel, input, static_cast<cl_int>(n), bins, olds));
      ASSERT_TRUE(run1D(kernel, local, local)); // one work-group: one set of counters
      std::vector<std::vector<cl_int>> expected(16), seen(16);
      std::vector<cl_int> old = read<cl_int>(olds, n);
      for (size_t i = 0; i < n; ++i) {
        std::vector<cl_int> &bin = expected[in[i] & 15];
        bin.push_back(static_cast<cl_int>(bin.size()));
        seen[in[i] & 15].push_back(old[i]);
      }
      std::vector<cl_int> counts = read<cl_int>(bins, 16);
      for (size_t bin = 0; bin < 16; ++bin) {
        std::sort(seen[bin].begin(), seen[bin].end());
        EXPECT_EQ(static_cast<cl_int>(expected[bin].size()), counts[bin])
            << "bin " << bin << ", " << n << " items, work-group of " << local;
        EXPECT_TRUE(equalArrays(expected[bin], seen[bin]))
            << "old values of bin " << bin << ", " << n << " items, work-group of " << local;
      }
    }
}

TEST_F(VectorizerTest, CountersIndexedByLoadedBytesCountWhatEachWorkItemRead) {
  // Per-lane increments whose addresses come from a loaded byte. Each lane may load its byte
  // again at the increment, but only where that reads what the work-item read: not after the
  // work-item overwrote it ("cleared"), nor where the increments write the loaded buffer's
  // address space ("global"); always from constant memory ("constant"). Divergent increments
  // ("odd") run under partial lane masks.
  const char *source = R"(
    #define COUNT(kernelName, Space, body)                                                    \
      kernel void kernelName(Space uchar *data, int n, global int *bins, global uchar *zeros) { \
        local int counts[256];                                                               \
        for (int b = get_local_id(0); b < 256; b += get_local_size(0))                       \
          counts[b] = 0;                                                                     \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
        for (int i = get_global_id(0); i < n; i += get_global_size(0)) {                     \
          body                                                                               \
        }                                                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
        for (int b = get_local_id(0); b < 256; b += get_local_size(0))                       \
          atomic_add(&bins[b], counts[b]);                                                   \
      }
    COUNT(plain, global const, atomic_inc(&counts[data[i]]);)
    COUNT(constant_data, constant, atomic_inc(&counts[data[i]]);)
    COUNT(odd, global const, uchar v = data[i]; if (v & 1) atomic_inc(&counts[v]);)
    COUNT(cleared, global, uchar v = data[i]; data[i] = 0; atomic_inc(&counts[v]);)
    COUNT(global_bins, global const, atomic_inc(&bins[data[i]]); zeros[i] = 0;)
  )";
  Random random(11);
  const size_t n = 5000;
  std::vector<cl_uchar> bytes(n);
  for (cl_uchar &byte : bytes)
    byte = static_cast<cl_uchar>(random.next() % 256);
  for (const char *name : {"plain", "constant_data", "odd", "cleared", "global_bins"}) {
    Kernel kernel = buildKernel(source, name);
    ASSERT_TRUE(kernel) << name;
    bool odd = std::string(name) == "odd";
    std::vector<cl_int> expected(256, 0);
    for (cl_uchar byte : bytes)
      if (!odd || (byte & 1))
        ++expected[byte];
    for (size_t local : {64u, 256u}) {
      Mem data = bufferWith(bytes);
      Mem bins = bufferWith(std::vector<cl_int>(256, 0));
      Mem zeros = bufferWith(std::vector<cl_uchar>(n, 1));
      ASSERT_TRUE(setArgs(kernel, data, static_cast<cl_int>(n), bins, zeros));
      ASSERT_TRUE(run1D(kernel, local * 4, local));
      std::vector<cl_int> counted = read<cl_int>(bins, 256);
      EXPECT_TRUE(equalArrays(expected, counted)) << name << ", work-groups of " << local;
      if (std::string(name) == "cleared")
        EXPECT_TRUE(equalArrays(std::vector<cl_uchar>(n, 0), read<cl_uchar>(data, n)))
            << "cleared, work-groups of " << local;
    }
  }
}

TEST_F(VectorizerTest, KernelsOnWholeVectorRegistersRunWorkItemsInterleaved) {
  // float16 and int16 arithmetic (and float8 and int8 with 256-bit vectors) fills the vector
  // registers: such kernels stay scalar and their work-item loop runs several work-items
  // interleaved (unroll-and-jam: as many as the registers hold; with AVX2 4 of float16, 8 of
  // float8, 3 of int16 and 7 of int8, whose multiplications keep a register free), with a
  // remainder when the local size is not a multiple of their number. Each trip runs 8 steps, a
  // loop body long enough for the interleaved chains to be reordered side by side. Where the
  // optimizer cannot prove the work-items independent (the loading kernels: `in` and `out` may
  // alias) it refuses, and the kernel is compiled again in SIMD groups. Both paths must give the
  // host's results.
  const char *source = R"(
    #define CAT(a, b) a##b
    #define EXPANDED_CAT(a, b) CAT(a, b)
    #define TYPE(t) EXPANDED_CAT(t, N)
    #if N == 16
    #define IOTA 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    #else
    #define IOTA 0, 1, 2, 3, 4, 5, 6, 7
    #endif
    TYPE(float) first_float(size_t i, global const float *in) {
    #ifdef LOADS
      return TYPE(vload)(i, in);
    #else
      return TYPE(convert_float)((TYPE(int))(IOTA)) - (float)i;
    #endif
    }
    TYPE(int) first_int(size_t i, global const int *in) {
    #ifdef LOADS
      return TYPE(vload)(i, in);
    #else
      return (TYPE(int))(IOTA) * 977 - (int)i;
    #endif
    }
    kernel void wide_float(global const float *in, global float *out, int trips) {
      size_t i = get_global_id(0);
      TYPE(float) x = first_float(i, in), y = x + (float)get_local_id(0);
      for (int t = 0; t < trips; ++t) {
        #define STEP x = fma(x, (TYPE(float))(0.5f), y); y = fma(y, (TYPE(float))(0.5f), -x);
        STEP STEP STEP STEP STEP STEP STEP STEP
        #undef STEP
      }
      TYPE(vstore)(x + y, i, out);
    }
    kernel void wide_int(global const int *in, global int *out, int trips) {
      size_t i = get_global_id(0);
      TYPE(int) x = first_int(i, in), y = x + (int)get_local_id(0);
      for (int t = 0; t < trips; ++t) {
        #define STEP x = x * 3 + y; y = y ^ (x >> 2);
        STEP STEP STEP STEP STEP STEP STEP STEP
        #undef STEP
      }
      TYPE(vstore)(x - y, i, out);
    })";
  const cl_int trips = 37;
  for (int components : {16, 8})
    for (bool loads : {false, true})
      for (size_t local : {1u, 3u, 17u, 64u}) {
        SCOPED_TRACE(std::to_string(components) + " components, " +
                     (loads ? "loading" : "computed") + " input, work-groups of " +
                     std::to_string(local));
        const size_t items = local * 5;
        std::vector<cl_int> ints = sample(items * components, local + 3);
        std::vector<float> floats(ints.size());
        for (size_t k = 0; k < ints.size(); ++k) {
          if (!loads) {
            cl_int component = static_cast<cl_int>(k % components);
            cl_int item = static_cast<cl_int>(k / components);
            ints[k] = component * 977 - item;
            floats[k] = static_cast<float>(component) - static_cast<float>(item);
          } else {
            floats[k] = static_cast<float>(ints[k]) / 1000.0f;
          }
        }
        std::vector<float> expectedFloats(floats.size());
        std::vector<cl_int> expectedInts(ints.size());
        for (size_t k = 0; k < floats.size(); ++k) {
          uint32_t lid = static_cast<uint32_t>((k / components) % local);
          float x = floats[k], y = x + static_cast<float>(lid);
          uint32_t a = static_cast<uint32_t>(ints[k]), b = a + lid;
          for (int step = 0; step < trips * 8; ++step) {
            x = std::fma(x, 0.5f, y);
            y = std::fma(y, 0.5f, -x);
            a = a * 3u + b;
            b = b ^ static_cast<uint32_t>(static_cast<int32_t>(a) >> 2);
          }
          expectedFloats[k] = x + y;
          expectedInts[k] = static_cast<cl_int>(a - b);
        }
        std::string options = "-DN=" + std::to_string(components) + (loads ? " -DLOADS" : "");
        ScopedEnvironment report("KILN_VECTORIZE_REPORT", "1");
        ScopedEnvironment on("KILN_VECTORIZE", std::nullopt); // also when CI turns it off
        Kernel wideFloat = buildKernel(source, "wide_float", options);
        Kernel wideInt = buildKernel(source, "wide_int", options);
        ASSERT_TRUE(wideFloat && wideInt);
        Mem floatIn = bufferWith(floats), floatOut = bufferWith(std::vector<float>(floats.size()));
        Mem intIn = bufferWith(ints), intOut = bufferWith(std::vector<cl_int>(ints.size()));
        ASSERT_TRUE(setArgs(wideFloat, floatIn, floatOut, trips));
        ASSERT_TRUE(setArgs(wideInt, intIn, intOut, trips));
        // The optimizer's refusal is a warning diagnostic; Kiln must not print it, only the
        // report asked for. The values of these loops fit in the registers with the free one, so
        // interleaved work-items go side by side.
        testing::internal::CaptureStderr();
        bool ran = run1D(wideFloat, items, local) && run1D(wideInt, items, local);
        std::istringstream printed(testing::internal::GetCapturedStderr());
        int sideBySide = 0;
        for (std::string line; std::getline(printed, line);) {
          EXPECT_EQ(line.rfind("kiln: kernel 'wide_", 0), 0u) << line;
          if (line.find("interleaved") != std::string::npos) {
            EXPECT_NE(line.find("side by side"), std::string::npos) << line;
            sideBySide += line.find("side by side") != std::string::npos;
          }
        }
        // The report is the CPU device's (a GPU runs the kernels without it): 16 components
        // fill the registers of AVX2 and AVX-512 alike.
        if (isKilnCpuDevice() && components == 16 && !loads && local > 1)
          EXPECT_EQ(sideBySide, 2);
        ASSERT_TRUE(ran);
        EXPECT_TRUE(equalArrays(expectedFloats, read<float>(floatOut, floats.size())));
        EXPECT_TRUE(equalArrays(expectedInts, read<cl_int>(intOut, ints.size())));
      }
}

TEST_F(VectorizerTest, BitonicSortWithComputedPartnerAddresses) {
  // The partner index `id / d * 2 * d + id % d` is consecutive across lanes when the distance d
  // is at least the SIMD width and scattered below it; d is an argument, so only the run-time
  // check tells, and the division takes its power-of-two path. The distance 3 pass (not a
  // power of two, not a sort step) checks the division's other path.
  Kernel kernel = buildKernel(R"(
    kernel void step(global uint *keys, uint stage, uint distance) {
      uint id = get_global_id(0);
      uint low = (id / distance) * 2 * distance + id % distance, high = low + distance;
      bool ascending = (low & (2u << stage)) == 0;
      uint a = keys[low], b = keys[high];
      if ((a > b) == ascending) {
        keys[low] = b;
        keys[high] = a;
      }
    })",
                              "step");
  ASSERT_NE(nullptr, kernel.get());
  const size_t n = 4096;
  for (size_t local : {0u, 16u, 64u, 256u}) {
    Random random(local + 1);
    std::vector<cl_uint> keys(n);
    for (cl_uint &key : keys)
      key = static_cast<cl_uint>(random.next());
    Mem buffer = bufferWith(keys);
    for (cl_uint stage = 0; (size_t{2} << stage) <= n; ++stage)
      for (cl_uint distance = 1u << stage; distance > 0; distance /= 2) {
        ASSERT_TRUE(setArgs(kernel, buffer, stage, distance));
        ASSERT_TRUE(run1D(kernel, n / 2, local));
      }
    std::vector<cl_uint> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(equalArrays(sorted, read<cl_uint>(buffer, n))) << "work-groups of " << local;

    // One pass with a distance of 3 on the sorted keys, against the same pass on the host.
    std::vector<cl_uint> expected = sorted;
    const cl_uint stage = 1, distance = 3;
    for (cl_uint id = 0; id < n / 2 - distance; ++id) {
      cl_uint low = (id / distance) * 2 * distance + id % distance, high = low + distance;
      bool ascending = (low & (2u << stage)) == 0;
      if (high < n && (expected[low] > expected[high]) == ascending)
        std::swap(expected[low], expected[high]);
    }
    Mem again = bufferWith(sorted);
    ASSERT_TRUE(setArgs(kernel, again, stage, distance));
    // Work-items whose pair reaches past the end are left out: n/2 - 3 of them.
    ASSERT_TRUE(run1D(kernel, n / 2 - distance, 0));
    EXPECT_TRUE(equalArrays(expected, read<cl_uint>(again, n))) << "distance 3";
  }
}

TEST_F(VectorizerTest, GathersAndScattersWithinSmallWindows) {
  // With AVX-512, every 16 lanes whose addresses lie within 32 elements of the first lane's are
  // read with two loads and a permute, and written (when the addresses increase) with expands
  // and masked stores. Strides 1 and 2 keep the lanes there, 3 and 5 do not; the pairs of runs
  // are a bitonic sort's short distances; reversed reads leave the window at its start; the
  // scatters are masked by the data; the buffers end with no slack where the last window does.
  Kernel kernel = buildKernel(R"(
    kernel void spread(global const int *in, global int *out, global float *runs, int stride,
                       int n) {
      int i = get_global_id(0), j = i * stride;
      int x = in[j], y = in[n - 1 - j];
      if (x > 0)
        out[j] = x - y;
      if (x % 3 != 0)
        runs[(i / stride) * 2 * stride + i % stride] = (float)y;
    })",
                              "spread");
  ASSERT_NE(nullptr, kernel.get());
  for (cl_int stride : {1, 2, 3, 5})
    for (cl_int n : {64, 1000, 4099})
      for (size_t local : {0u, 16u, 64u}) {
        size_t global = static_cast<size_t>(n / stride);
        if (local != 0)
          global = global / local * local;
        std::vector<cl_int> in = sample(static_cast<size_t>(n), n + stride + local);
        std::vector<cl_int> out(static_cast<size_t>(n), -7);
        std::vector<cl_float> runs(static_cast<size_t>(2 * n), -1.0f);
        Mem input = bufferWith(in), output = bufferWith(out), runBuffer = bufferWith(runs);
        for (size_t i = 0; i < global; ++i) {
          cl_int j = static_cast<cl_int>(i) * stride, x = in[j], y = in[n - 1 - j];
          if (x > 0)
            out[j] = x - y;
          if (x % 3 != 0)
            runs[(i / stride) * 2 * stride + i % stride] = static_cast<cl_float>(y);
        }
        ASSERT_TRUE(setArgs(kernel, input, output, runBuffer, stride, n));
        ASSERT_TRUE(run1D(kernel, global, local));
        EXPECT_TRUE(equalArrays(out, read<cl_int>(output, out.size())))
            << "stride " << stride << ", " << n << " elements, work-groups of " << local;
        EXPECT_TRUE(equalArrays(runs, read<cl_float>(runBuffer, runs.size())))
            << "stride " << stride << ", " << n << " elements, work-groups of " << local;
      }
}

TEST_F(VectorizerTest, PrivateArraysIndexedPerWorkItem) {
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0), table[8];
      for (int k = 0; k < 8; ++k) table[k] = in[i] * k;
      table[in[i] & 7] += 1000;                  // a different slot in each lane
      int a = table[(i + 3) & 7], b = table[in[i] & 7];
      out[i] = a - b;
    })";
  std::vector<cl_int> in = sample(200, 17);
  std::vector<cl_int> expected(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    int table[8];
    for (int k = 0; k < 8; ++k)
      table[k] = in[i] * k;
    table[in[i] & 7] += 1000;
    expected[i] = table[(i + 3) & 7] - table[in[i] & 7];
  }
  EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, 200, 20)));
}

TEST_F(VectorizerTest, VectorTypesReadAndWrittenWholeAcrossLanes) {
  // Each work-item reads and writes whole vectors (int2 ... int16, vload3/vstore3) or writes
  // the components of a pair one by one: in lanes their components are read and written as
  // whole runs of memory and shuffled apart and together (interleaved groups). The result mixes
  // the components, so a lane or component out of place shows. The accesses are unconditional:
  // only the lanes past the end of a work-group are masked off (17 items in SIMD groups of 4 to
  // 64, the smaller last group of a non-uniform NDRange), and the buffers hold exactly the data
  // (the sanitizer builds check the ends). One work-group of 17 alone must leave every other
  // item as it was: its masked lanes' addresses lie inside the buffers, and must not be touched.
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0);
    #if defined(PAIRS)
      int a = in[2 * i], b = in[2 * i + 1];
      out[2 * i + 1] = a * 3 + i + a;
      out[2 * i] = b * 3 + i + a;
    #elif F == 3
      int3 v = vload3(i, in);
      vstore3(v * 3 + i + v.s0, i, out);
    #else
      VT v = ((global const VT *)in)[i];
      ((global VT *)out)[i] = v * 3 + i + v.s0;
    #endif
    })";
  struct Variant {
    const char *options;
    size_t components;
    bool pairs;
  };
  const Variant variants[] = {{"-DF=2 -DVT=int2", 2, false},    {"-DF=3", 3, false},
                              {"-DF=4 -DVT=int4", 4, false},    {"-DF=8 -DVT=int8", 8, false},
                              {"-DF=16 -DVT=int16", 16, false}, {"-DF=2 -DPAIRS", 2, true}};
  const size_t items = 1003;
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt); // also when CI turns it off
  for (const Variant &variant : variants) {
    const size_t f = variant.components;
    const std::string options = std::string(variant.options) + " -cl-std=CL3.0";
    std::vector<cl_int> in = sample(items * f, f);
    std::vector<cl_int> expected(in.size());
    for (size_t i = 0; i < items; ++i)
      for (size_t c = 0; c < f; ++c) {
        cl_int first = in[i * f], value = variant.pairs ? in[i * f + (1 - c)] : in[i * f + c];
        expected[i * f + c] = value * 3 + static_cast<cl_int>(i) + first;
      }
    for (const char *width : {"", "4", "8", "16", "64"}) {
      std::optional<ScopedEnvironment> simd;
      if (*width)
        simd.emplace("KILN_SIMD_WIDTH", width);
      for (size_t local : {17u, 64u}) {
        EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, items, local, options)))
            << variant.options << ", SIMD width " << (*width ? width : "chosen")
            << ", work-groups of " << local;
      }
      std::vector<cl_int> oneGroup(in.size(), -7);
      std::copy_n(expected.begin(), 17 * f, oneGroup.begin());
      EXPECT_TRUE(equalArrays(oneGroup, runOneToOne(source, in, 17, 17, options)))
          << variant.options << ", SIMD width " << (*width ? width : "chosen")
          << ", one work-group of 17";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Types and builtins: bit for bit what the same kernel computes with vectorization off

class BuiltinFamilyTest : public VectorizerTest,
                          public ::testing::WithParamInterface<const char *> {
protected:
  std::vector<cl_uchar> runFamily(const std::string &body, size_t items) {
    std::string source = std::string(R"(
      #pragma OPENCL EXTENSION cl_khr_fp64 : enable
      kernel void family(global const float *f, global const int *n, global uchar *bytes) {
        size_t i = get_global_id(0);
        float x = f[i], y = f[(i * 5 + 1) % get_global_size(0)];
        int a = n[i], b = n[(i * 3 + 2) % get_global_size(0)];
        global uchar *out = bytes + i * 64;
      )") + body + "}";
    Kernel kernel = buildKernel(source, "family");
    if (!kernel)
      return {};
    Random random(items);
    std::vector<cl_float> floats(items);
    std::vector<cl_int> ints(items);
    for (size_t k = 0; k < items; ++k) {
      floats[k] = random.uniform(-20.f, 20.f);
      ints[k] = static_cast<cl_int>(random.next());
    }
    floats[0] = 0.f, floats[1] = -0.f, floats[2] = INFINITY, floats[3] = NAN;
    ints[0] = 0, ints[1] = -1, ints[2] = INT32_MIN, ints[3] = INT32_MAX;
    Mem f = bufferWith(floats), n = bufferWith(ints);
    Mem out = bufferWith(std::vector<cl_uchar>(items * 64, 0));
    EXPECT_TRUE(setArgs(kernel, f, n, out));
    EXPECT_TRUE(run1D(kernel, items, 0));
    return read<cl_uchar>(out, items * 64);
  }
};

const char *const kFamilies[] = {
    // integer, on every width of integer
    R"(vstore4((int4)(clz(a), popcount(b), mad_sat(a, b, a), rotate(a, b)), 0, (global int *)out);
       vstore4((int4)(hadd(a, b), abs_diff(a, b), mul_hi(a, b), a / (b | 1)), 1, (global int *)out);
       vstore8(convert_short8_sat((int8)(a, b, a >> 3, b >> 7, a * b, a - b, -a, ~b)), 2,
               (global short *)out);
       vstore8(convert_char8((int8)(a, b, a >> 3, b >> 7, a * b, a - b, -a, ~b)), 6,
               (global char *)out);
       ((global long *)out)[7] = (long)a * b + upsample(a, (uint)b);)",
    // math, single precision
    R"(vstore4((float4)(sin(x), exp(y / 4), pow(fabs(x), y / 8), sqrt(fabs(y))), 0,
               (global float *)out);
       vstore4((float4)(fma(x, y, x), fmin(x, y), atan2(x, y), log1p(fabs(x))), 1,
               (global float *)out);
       vstore4((float4)(native_exp(x / 8), half_sqrt(fabs(x)), floor(x), rint(y)), 2,
               (global float *)out);
       float4 v = (float4)(x, y, x * y, x - y);
       vstore4(v * v.wzyx + (float4)(1, 2, 3, 4), 3, (global float *)out);)",
    // relational, geometric, common, conversions
    R"(float4 p = (float4)(x, y, 1.f, -x), q = (float4)(y, x, -2.f, 3.f);
       vstore4((float4)(dot(p, q), length(p), distance(p, q), normalize(q).x), 0,
               (global float *)out);
       vstore4(select((int4)(a, b, 1, 2), (int4)(b, a, 3, 4), isgreater(p, q)), 1,
               (global int *)out);
       vstore4((int4)(isnan(x), any(p < q), all(p >= q), signbit(y)), 2, (global int *)out);
       vstore4((int4)(convert_int_sat_rte(x * 1e8f), convert_int_rtz(y), (int)clamp(x, -1.f, 1.f),
                      as_int(mix(x, y, 0.25f))), 3, (global int *)out);)",
    // double and long
    R"(double d = (double)x * y + a;
       ((global double *)out)[0] = sqrt(fabs(d)) + sin(d / 1000);
       ((global double *)out)[1] = (double)(long)a * b;
       ((global long *)out)[2] = (long)a * b >> 5;
       ((global ulong *)out)[3] = (ulong)b * (ulong)a + (ulong)d;
       double2 dv = (double2)(d, x);
       vstore2(dv * dv.yx, 2, (global double *)out);)",
};

TEST_P(BuiltinFamilyTest, SameBitsAsWithVectorizationOff) {
  if (std::string(GetParam()).find("double") != std::string::npos &&
      !hasExtension(device_, "cl_khr_fp64"))
    GTEST_SKIP() << "no cl_khr_fp64";
  constexpr size_t kItems = 203; // not a multiple of any SIMD width
  std::vector<cl_uchar> vectorized = runFamily(GetParam(), kItems);
  ScopedEnvironment off("KILN_VECTORIZE", "0");
  std::vector<cl_uchar> scalar = runFamily(GetParam(), kItems);
  ASSERT_EQ(scalar.size(), vectorized.size());
  for (size_t byte = 0; byte < scalar.size(); ++byte)
    ASSERT_EQ(scalar[byte], vectorized[byte])
        << "work-item " << byte / 64 << ", output byte " << byte % 64;
}

std::string familyName(const ::testing::TestParamInfo<const char *> &info) {
  const char *const names[] = {"integer", "math", "relational_geometric", "double_long"};
  return names[info.index];
}

INSTANTIATE_TEST_SUITE_P(Families, BuiltinFamilyTest, ::testing::ValuesIn(kFamilies), familyName);

TEST_F(VectorizerTest, IntegerFamilyMatchesTheHost) {
  // One family against host arithmetic too, so that "the same bits" is not two equal errors.
  const char *source = R"(
    kernel void one(global const int *in, global int *out, int n) {
      int i = get_global_id(0), a = in[i], b = in[(i * 3 + 2) % n];
      // Unsigned arithmetic: signed overflow would be undefined.
      out[i] = popcount(a) + clz(b) * 100u + ((uint)a * (uint)b >> 3) + abs(a - b) + (char)a;
    })";
  std::vector<cl_int> in = sample(333, 21, 1 << 30);
  std::vector<cl_int> expected(in.size());
  int n = static_cast<int>(in.size());
  for (int i = 0; i < n; ++i) {
    uint32_t a = static_cast<uint32_t>(in[i]), b = static_cast<uint32_t>(in[(i * 3 + 2) % n]);
    uint32_t clz = b == 0 ? 32 : __builtin_clz(b);
    int32_t difference = in[i] - in[(i * 3 + 2) % n]; // both within +-2^30: no overflow
    uint32_t distance =
        difference < 0 ? 0u - static_cast<uint32_t>(difference) : static_cast<uint32_t>(difference);
    expected[i] = static_cast<cl_int>(__builtin_popcount(a) + clz * 100u + (a * b >> 3) + distance +
                                      static_cast<uint32_t>(static_cast<int8_t>(a)));
  }
  EXPECT_TRUE(equalArrays(expected, runOneToOne(source, in, 333, 0)));
}

TEST_F(VectorizerTest, AnEarlyReturnTheWorkGroupSizeDecidesLeavesBarriersVectorizable) {
  // The sizes are constants in a work-group function, so the return is taken by every
  // work-item or none: the barrier after it is not in divergent control flow.
  const char *source = R"(
    kernel void reverse(global const int *in, global int *out) {
      local int tile[64];
      if (get_num_sub_groups() == 1 && get_local_size(0) == 1)
        return;
      size_t lid = get_local_id(0);
      tile[lid] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = tile[get_local_size(0) - 1 - lid];
    })";
  ScopedEnvironment on("KILN_VECTORIZE", std::nullopt);
  Kernel kernel = buildReportingKernel(source, "reverse", "-cl-std=CL3.0");
  ASSERT_TRUE(kernel);
  const size_t global = 256, local = 64;
  std::vector<cl_int> in = sample(global, 11);
  Mem input = bufferWith(in);
  Mem output = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, input, output));
  std::string report = runCapturingStderr(kernel, global, local);
  if (isKilnCpuDevice())
    EXPECT_EQ(report.find("not vectorized"), std::string::npos) << report;
  std::vector<cl_int> expected(global);
  for (size_t item = 0; item < global; ++item)
    expected[item] = in[item - item % local + (local - 1 - item % local)];
  EXPECT_TRUE(equalArrays(expected, read<cl_int>(output, global)));
}

} // namespace
