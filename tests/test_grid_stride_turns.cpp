// The CPU device runs the grid-stride loops of a worker's neighbouring work-groups in step: each
// SIMD group yields every few iterations, and the runtime runs the same stretch of the next
// work-groups before going on with the first (codegen/work_group/grid_stride_turns.hpp). Each
// work-group keeps its own local memory, barriers and collectives across the turns, and every
// work-item's loop runs its iterations in order: the results here are the host's, exactly, for
// launch shapes whose work-groups do not divide into the groups run in step, whose last
// work-group is narrower, in two dimensions, with work-items that return before the loop, and
// for loops whose stride is a constant (the local size, a matrix's constant width).
#include "cl_test.hpp"

#include <algorithm>
#include <array>

using namespace cltest;

namespace {

const char *kSource = R"(
  #define GROUP 256
  // The benchmark suite's reduction: grid-stride sums, then halving steps in local memory.
  kernel void reduceInLocalMemory(global const float *data, uint length, global float *partials) {
    local float sums[GROUP];
    uint id = get_local_id(0), size = get_local_size(0);
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      sum += data[i];
    sums[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = GROUP / 2; step > 0; step /= 2) {
      if (id < step && id + step < size)
        sums[id] += sums[id + step];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (id == 0)
      partials[get_group_id(0)] = sums[0];
  }
  // The suite's histogram: local atomics in the loop, merged with global ones.
  kernel void histogram(global const uchar *data, uint length, global uint *bins) {
    local uint counts[256];
    for (uint bin = get_local_id(0); bin < 256; bin += get_local_size(0))
      counts[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      atomic_inc(&counts[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint bin = get_local_id(0); bin < 256; bin += get_local_size(0))
      atomic_add(&bins[bin], counts[bin]);
  }
  // Rows of a two-dimensional range, each summed by its own grid-stride loop; odd work-items
  // return before it.
  kernel void rowSums(global const uint *data, uint width, global uint *sums) {
    uint x = get_global_id(0), y = get_global_id(1);
    sums[y * get_global_size(0) + x] = 0;
    if (x % 2 == 1)
      return;
    uint sum = 0;
    for (uint i = x; i < width; i += get_global_size(0))
      sum += data[y * width + i] * (i % 5 + 1);
    sums[y * get_global_size(0) + x] = sum;
  })";

const char *kConstantStrideSource = R"(
  // Each work-group sums its own range (the suite's subdivision leaves): the work-items stride
  // by the local size, a constant once the device has specialized it.
  kernel void rangeSums(global const int *data, global const int2 *ranges, global long *sums) {
    int2 range = ranges[get_group_id(0)];
    long sum = 0;
    for (int i = range.x + (int)get_local_id(0); i < range.y; i += (int)get_local_size(0))
      sum += data[i] * (i % 3 - 1);
    sums[get_global_id(0)] = sum;
  }
  // Down the columns of a matrix whose width is a constant: a stride of 4 KiB.
  #define WIDTH 1024
  kernel void columnSums(global const uint *data, uint rows, global uint *sums) {
    uint x = get_global_id(0), sum = 0;
    for (uint row = 0; row < rows; ++row)
      sum += data[row * WIDTH + x] ^ row;
    sums[x] = sum;
  }
)";

const char *kCollectiveSource = R"(
  // A group's own value in local memory before and after the loop, and a collective.
  kernel void countTagged(global const uint *data, uint length, global uint *totals) {
    local uint tag;
    if (get_local_id(0) == 0)
      tag = (uint)get_group_id(0) * 1000003u + 7u;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint count = 0;
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      count += data[i] ^ tag;
    count = work_group_reduce_add(count);
    if (get_local_id(0) == 0)
      totals[get_group_id(0)] = count + tag;
  }
)";

/// What reduceInLocalMemory leaves for each of `groups` work-groups of `local` work-items
/// (the last one narrower when `global` is not a multiple), in the kernel's order.
std::vector<float> hostPartials(const std::vector<float> &data, size_t global, size_t local) {
  size_t groups = (global + local - 1) / local;
  std::vector<float> partials(groups);
  for (size_t group = 0; group < groups; ++group) {
    size_t size = std::min(local, global - group * local);
    std::array<float, 256> sums{};
    for (size_t id = 0; id < size; ++id)
      for (size_t i = group * local + id; i < data.size(); i += global)
        sums[id] += data[i];
    for (size_t step = 128; step > 0; step /= 2)
      for (size_t id = 0; id < step; ++id)
        if (id + step < size)
          sums[id] += sums[id + step];
    partials[group] = sums[0];
  }
  return partials;
}

/// Sets the arguments most kernels here take: an input buffer, a count, an output buffer.
void setInputCountOutput(cl_kernel kernel, const Mem &input, cl_uint count, const Mem &output) {
  cl_mem handles[] = {input.get(), output.get()};
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof(cl_mem), &handles[0]));
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof(cl_uint), &count));
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 2, sizeof(cl_mem), &handles[1]));
}

class GridStrideTurnsTest : public ClTest {
protected:
  template <typename T> std::vector<T> randomData(size_t length, unsigned seed, unsigned mask) {
    std::vector<T> data(length);
    Random random(seed);
    for (T &value : data)
      value = static_cast<T>(random.next() & mask);
    return data;
  }
};

struct Launch {
  size_t length, global, local;
};

TEST_F(GridStrideTurnsTest, LocalMemoryReductionsMatchTheHost) {
  // 64 and 256 work-groups (in step in fours, or as many as the workers leave), 37, 13 and 3
  // (not multiples), 1, and a last work-group narrower than the others.
  constexpr Launch kLaunches[] = {{1 << 20, 64 * 256, 256},     {1 << 20, 256 * 256, 256},
                                  {100003, 37 * 256, 256},      {70001, 13 * 256, 256},
                                  {5000, 3 * 256, 256},         {4099, 256, 256},
                                  {200001, 20 * 256 + 100, 256}};
  // Turns are taken by SIMD groups of the vectorized code (also when CI turns it off).
  ScopedEnvironment vectorized("KILN_VECTORIZE", std::nullopt);
  Kernel kernel = buildReportingKernel(kSource, "reduceInLocalMemory", "-cl-std=CL3.0");
  ASSERT_TRUE(kernel);
  bool reported = false;
  for (const Launch &launch : kLaunches) {
    SCOPED_TRACE(std::to_string(launch.length) + " floats, " + std::to_string(launch.global) +
                 " work-items in groups of " + std::to_string(launch.local));
    std::vector<float> data = randomData<float>(launch.length, 21, 1023);
    for (float &value : data)
      value /= 16.0f;
    Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
    size_t groups = (launch.global + launch.local - 1) / launch.local;
    Mem partials = createBuffer(CL_MEM_WRITE_ONLY, groups * sizeof(cl_float));
    ASSERT_NO_FATAL_FAILURE(
        setInputCountOutput(kernel, buffer, static_cast<cl_uint>(launch.length), partials));
    std::string report = runCapturingStderr(kernel, launch.global, launch.local);
    reported = reported || report.find("grid-stride loop takes turns") != std::string::npos;
    EXPECT_EQ(read<cl_float>(partials, groups), hostPartials(data, launch.global, launch.local));
  }
  if (isKilnCpuDevice())
    EXPECT_TRUE(reported) << "the reduction's loop took no turns";
}

TEST_F(GridStrideTurnsTest, EachWorkGroupKeepsItsLocalMemoryAndCollectivesAcrossTurns) {
  if (!hasOpenClCFeature(device_, "__opencl_c_work_group_collective_functions"))
    GTEST_SKIP() << "the device has no work-group collective functions";
  Kernel kernel = buildKernel(kCollectiveSource, "countTagged", "-cl-std=CL3.0");
  ASSERT_TRUE(kernel);
  for (size_t groups : {size_t{64}, size_t{19}, size_t{2}}) {
    SCOPED_TRACE(std::to_string(groups) + " work-groups");
    const size_t local = 128, global = groups * local, length = 300007;
    std::vector<cl_uint> data = randomData<cl_uint>(length, 22, 0xffff);
    Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
    Mem totals = createBuffer(CL_MEM_WRITE_ONLY, groups * sizeof(cl_uint));
    ASSERT_NO_FATAL_FAILURE(
        setInputCountOutput(kernel, buffer, static_cast<cl_uint>(length), totals));
    ASSERT_TRUE(run1D(kernel, global, local));
    std::vector<cl_uint> expected(groups);
    for (size_t group = 0; group < groups; ++group) {
      cl_uint tag = static_cast<cl_uint>(group) * 1000003u + 7u, count = 0;
      for (size_t id = 0; id < local; ++id)
        for (size_t i = group * local + id; i < length; i += global)
          count += data[i] ^ tag;
      expected[group] = count + tag;
    }
    EXPECT_EQ(read<cl_uint>(totals, groups), expected);
  }
}

TEST_F(GridStrideTurnsTest, HistogramsWithLocalAtomicsMatchTheHost) {
  Kernel kernel = buildKernel(kSource, "histogram");
  ASSERT_TRUE(kernel);
  for (size_t groups : {size_t{256}, size_t{64}, size_t{23}, size_t{1}}) {
    SCOPED_TRACE(std::to_string(groups) + " work-groups");
    const size_t length = (size_t{1} << 21) + 333;
    std::vector<cl_uchar> data = randomData<cl_uchar>(length, 23, 0xff);
    Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
    Mem bins = bufferWith(std::vector<cl_uint>(256, 0));
    ASSERT_NO_FATAL_FAILURE(
        setInputCountOutput(kernel, buffer, static_cast<cl_uint>(length), bins));
    ASSERT_TRUE(run1D(kernel, groups * 256, 256));
    std::vector<cl_uint> expected(256, 0);
    for (cl_uchar byte : data)
      ++expected[byte];
    EXPECT_EQ(read<cl_uint>(bins, 256), expected);
  }
}

TEST_F(GridStrideTurnsTest, RangesStridedByTheLocalSizeMatchTheHost) {
  ScopedEnvironment vectorized("KILN_VECTORIZE", std::nullopt);
  Kernel kernel = buildReportingKernel(kConstantStrideSource, "rangeSums", "-cl-std=CL3.0");
  ASSERT_TRUE(kernel);
  const size_t length = 3 << 18;
  std::vector<cl_int> data = randomData<cl_int>(length, 25, 0xffff);
  for (cl_int &value : data)
    value -= 0x8000;
  bool reported = false;
  for (size_t local : {size_t{256}, size_t{64}}) {
    SCOPED_TRACE("work-groups of " + std::to_string(local));
    // Ranges long and short, empty, not multiples of the local size, some shorter than it.
    std::vector<cl_int2> ranges;
    for (cl_int begin = 0, step = 0; begin < static_cast<cl_int>(length); ++step) {
      cl_int size = std::array{65536, 70001, 0, 17, 300, 4099, 131072}[step % 7];
      cl_int end = std::min(begin + size, static_cast<cl_int>(length));
      ranges.push_back(cl_int2{{begin, end}});
      begin = end;
    }
    size_t global = ranges.size() * local;
    Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
    Mem rangeBuffer = bufferWith(ranges, CL_MEM_READ_ONLY);
    Mem sums = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_long));
    cl_mem handles[] = {buffer.get(), rangeBuffer.get(), sums.get()};
    for (cl_uint argument = 0; argument < 3; ++argument)
      ASSERT_CL_SUCCESS(clSetKernelArg(kernel, argument, sizeof(cl_mem), &handles[argument]));
    std::string report = runCapturingStderr(kernel, global, local);
    reported = reported || report.find("grid-stride loop takes turns") != std::string::npos;
    std::vector<cl_long> expected(global, 0);
    for (size_t group = 0; group < ranges.size(); ++group)
      for (size_t id = 0; id < local; ++id)
        for (cl_int i = ranges[group].s[0] + static_cast<cl_int>(id); i < ranges[group].s[1];
             i += static_cast<cl_int>(local))
          expected[group * local + id] += data[i] * (i % 3 - 1);
    EXPECT_EQ(read<cl_long>(sums, global), expected);
  }
  if (isKilnCpuDevice())
    EXPECT_TRUE(reported) << "the loop over the group's range took no turns";
}

TEST_F(GridStrideTurnsTest, ColumnsOfAMatrixOfConstantWidthMatchTheHost) {
  Kernel kernel = buildKernel(kConstantStrideSource, "columnSums");
  ASSERT_TRUE(kernel);
  const size_t width = 1024, rows = 1000;
  std::vector<cl_uint> data = randomData<cl_uint>(width * rows, 26, 0xffffff);
  Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
  for (size_t local : {size_t{256}, size_t{32}}) {
    SCOPED_TRACE("work-groups of " + std::to_string(local));
    Mem sums = createBuffer(CL_MEM_WRITE_ONLY, width * sizeof(cl_uint));
    ASSERT_NO_FATAL_FAILURE(setInputCountOutput(kernel, buffer, static_cast<cl_uint>(rows), sums));
    ASSERT_TRUE(run1D(kernel, width, local));
    std::vector<cl_uint> expected(width, 0);
    for (size_t x = 0; x < width; ++x)
      for (size_t row = 0; row < rows; ++row)
        expected[x] += data[row * width + x] ^ static_cast<cl_uint>(row);
    EXPECT_EQ(read<cl_uint>(sums, width), expected);
  }
}

TEST_F(GridStrideTurnsTest, RowsOfATwoDimensionalRangeWithEarlyReturnsMatchTheHost) {
  Kernel kernel = buildKernel(kSource, "rowSums");
  ASSERT_TRUE(kernel);
  const size_t width = 100000, rows = 3;
  const size_t global[] = {512, rows}, local[] = {64, 1};
  std::vector<cl_uint> data = randomData<cl_uint>(width * rows, 24, 0xfff);
  Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
  Mem sums = createBuffer(CL_MEM_WRITE_ONLY, global[0] * rows * sizeof(cl_uint));
  ASSERT_NO_FATAL_FAILURE(setInputCountOutput(kernel, buffer, static_cast<cl_uint>(width), sums));
  ASSERT_TRUE(run(kernel, 2, global, local));
  std::vector<cl_uint> expected(global[0] * rows, 0);
  for (size_t y = 0; y < rows; ++y)
    for (size_t x = 0; x < global[0]; x += 2)
      for (size_t i = x; i < width; i += global[0])
        expected[y * global[0] + x] += data[y * width + i] * static_cast<cl_uint>(i % 5 + 1);
  EXPECT_EQ(read<cl_uint>(sums, global[0] * rows), expected);
}

} // namespace
