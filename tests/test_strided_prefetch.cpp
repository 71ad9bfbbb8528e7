// The CPU device prefetches, some iterations ahead, what a loop that steps by a stride known
// only at run time will read: a grid-stride loop (`i += get_global_size(0)`) or one whose step
// is an argument. The prefetches pass the end of the loop and of the buffer, which must never
// fault or change a result: the sums here are the host's, in the same order, exactly, for
// buffers of Kiln's and buffers that end right before an inaccessible page.
#include "cl_test.hpp"
#include "guarded_pages.hpp"

#include <cstring>

using namespace cltest;

namespace {

const char *kSource = R"(
  kernel void gridStrideSum(global const float *data, uint length, global float *sums) {
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      sum += data[i];
    sums[get_global_id(0)] = sum;
  }
  kernel void steppedSum(global const uchar *data, uint length, uint step, global uint *sums) {
    uint sum = 0;
    for (uint i = get_global_id(0); i < length; i += step)
      sum += data[i] * (i % 7 + 1);
    sums[get_global_id(0)] = sum;
  })";

/// What gridStrideSum computes for `global` work-items: each one's elements added in order.
std::vector<float> gridStrideSums(const std::vector<float> &data, size_t global) {
  std::vector<float> sums(global, 0.0f);
  for (size_t item = 0; item < global; ++item)
    for (size_t i = item; i < data.size(); i += global)
      sums[item] += data[i];
  return sums;
}

/// What steppedSum computes for `global` work-items stepping by `step`.
std::vector<cl_uint> steppedSums(const std::vector<cl_uchar> &data, size_t global, size_t step) {
  std::vector<cl_uint> sums(global, 0);
  for (size_t item = 0; item < global; ++item)
    for (size_t i = item; i < data.size(); i += step)
      sums[item] += data[i] * static_cast<cl_uint>(i % 7 + 1);
  return sums;
}

std::vector<float> floatData(size_t length) {
  std::vector<float> data(length);
  Random random(11);
  for (float &value : data)
    value = static_cast<float>(random.next() % 1000) / 8.0f;
  return data;
}

std::vector<cl_uchar> byteData(size_t length) {
  std::vector<cl_uchar> data(length);
  Random random(12);
  for (cl_uchar &value : data)
    value = static_cast<cl_uchar>(random.next());
  return data;
}

/// Launch shapes: one work-group, odd local sizes, a last work-group narrower than the rest
/// (OpenCL C 3.0), and a stride wider than the data.
struct Shape {
  size_t length, global, local;
};
constexpr Shape kShapes[] = {{1000, 64, 64},    {100003, 1024, 256}, {4099, 51, 17},
                             {70001, 1000, 64}, {999, 3, 3},         {500, 2048, 1024}};

class StridedPrefetchTest : public ClTest {
protected:
  void expectPrefetchedWhereKilnCpu(const std::string &report) {
    if (isKilnCpuDevice())
      EXPECT_NE(report.find("strided loads prefetched ahead"), std::string::npos) << report;
  }

  /// Runs gridStrideSum over `data` and checks the sums against the host's.
  void expectGridStrideSums(const std::vector<float> &expectedFrom, cl_mem data, size_t global,
                            size_t local) {
    Kernel kernel = buildReportingKernel(kSource, "gridStrideSum", "-cl-std=CL3.0");
    ASSERT_TRUE(kernel);
    Mem sums = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_float));
    cl_mem sumsHandle = sums.get();
    cl_uint length = static_cast<cl_uint>(expectedFrom.size());
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof(cl_mem), &data));
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof(cl_uint), &length));
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 2, sizeof(cl_mem), &sumsHandle));
    expectPrefetchedWhereKilnCpu(runCapturingStderr(kernel, global, local));
    EXPECT_EQ(read<cl_float>(sums, global), gridStrideSums(expectedFrom, global));
  }

  /// Runs steppedSum over `data` and checks the sums against the host's.
  void expectSteppedSums(const std::vector<cl_uchar> &expectedFrom, cl_mem data, size_t step,
                         size_t global, size_t local) {
    Kernel kernel = buildReportingKernel(kSource, "steppedSum", "-cl-std=CL3.0");
    ASSERT_TRUE(kernel);
    Mem sums = createBuffer(CL_MEM_WRITE_ONLY, global * sizeof(cl_uint));
    cl_mem sumsHandle = sums.get();
    cl_uint length = static_cast<cl_uint>(expectedFrom.size());
    cl_uint stepArgument = static_cast<cl_uint>(step);
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof(cl_mem), &data));
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof(cl_uint), &length));
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 2, sizeof(cl_uint), &stepArgument));
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 3, sizeof(cl_mem), &sumsHandle));
    expectPrefetchedWhereKilnCpu(runCapturingStderr(kernel, global, local));
    EXPECT_EQ(read<cl_uint>(sums, global), steppedSums(expectedFrom, global, step));
  }
};

TEST_F(StridedPrefetchTest, GridStrideSumsOfKilnsBuffersMatchTheHost) {
  for (const Shape &shape : kShapes) {
    SCOPED_TRACE("length " + std::to_string(shape.length) + ", " + std::to_string(shape.global) +
                 " work-items in groups of " + std::to_string(shape.local));
    std::vector<float> data = floatData(shape.length);
    Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
    expectGridStrideSums(data, buffer, shape.global, shape.local);
  }
}

TEST_F(StridedPrefetchTest, GridStrideSumsOfDataEndingAtAnInaccessiblePageMatchTheHost) {
  // The prefetches of the last iterations point past the guard page's start.
  for (const Shape &shape : kShapes) {
    SCOPED_TRACE("length " + std::to_string(shape.length));
    std::vector<float> data = floatData(shape.length);
    size_t bytes = data.size() * sizeof(float);
    GuardedPages guarded(bytes / 4096 + 2);
    ASSERT_TRUE(guarded.valid());
    void *memory = guarded.endingAtGuard(bytes);
    std::memcpy(memory, data.data(), bytes);
    Mem buffer = createBuffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, memory);
    expectGridStrideSums(data, buffer, shape.global, shape.local);
  }
}

TEST_F(StridedPrefetchTest, SumsSteppingByAnArgumentMatchTheHost) {
  // Steps of one byte (the prefetches land a few bytes ahead) to more than the data.
  std::vector<cl_uchar> data = byteData(30011);
  Mem buffer = bufferWith(data, CL_MEM_READ_ONLY);
  for (size_t step : {size_t{1}, size_t{64}, size_t{4096}, size_t{40000}}) {
    SCOPED_TRACE("step " + std::to_string(step));
    expectSteppedSums(data, buffer, step, 256, 64);
  }
}

TEST_F(StridedPrefetchTest, SumsSteppingByAnArgumentOverDataEndingAtAnInaccessiblePage) {
  std::vector<cl_uchar> data = byteData(8191);
  GuardedPages guarded(data.size() / 4096 + 2);
  ASSERT_TRUE(guarded.valid());
  void *memory = guarded.endingAtGuard(data.size());
  std::memcpy(memory, data.data(), data.size());
  Mem buffer = createBuffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, data.size(), memory);
  for (size_t step : {size_t{3}, size_t{1000}}) {
    SCOPED_TRACE("step " + std::to_string(step));
    expectSteppedSums(data, buffer, step, 96, 32);
  }
}

} // namespace
