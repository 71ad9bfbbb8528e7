// cl_khr_suggested_local_work_size: clGetKernelSuggestedLocalWorkSizeKHR answers the local size
// an NDRange without one really runs with, honours reqd_work_group_size, and reports the
// specified error for each bad argument.
#include "cl_test.hpp"

#include <array>

using namespace cltest;

namespace {

const char *kSource = R"(
  kernel void enqueuedSize(global uint *out) {
    if (get_global_id(0) == get_global_offset(0) && get_global_id(1) == get_global_offset(1) &&
        get_global_id(2) == get_global_offset(2))
      for (uint dim = 0; dim < 3; ++dim)
        out[dim] = get_enqueued_local_size(dim);
  }
  kernel __attribute__((reqd_work_group_size(8, 2, 1))) void required(global uint *out) {
    if (get_global_id(0) == 0 && get_global_id(1) == 0)
      out[0] = get_local_size(0) * 100 + get_local_size(1);
  })";

class SuggestedLocalSizeTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!hasExtension(device_, "cl_khr_suggested_local_work_size"))
      GTEST_SKIP() << "no cl_khr_suggested_local_work_size";
    suggest_ = reinterpret_cast<clGetKernelSuggestedLocalWorkSizeKHR_fn>(
        clGetExtensionFunctionAddressForPlatform(platform_,
                                                 "clGetKernelSuggestedLocalWorkSizeKHR"));
    ASSERT_NE(nullptr, suggest_);
    kernel_ = buildKernel(kSource, "enqueuedSize", "-cl-std=CL3.0");
    ASSERT_TRUE(kernel_);
    out_ = createBuffer(CL_MEM_READ_WRITE, 3 * sizeof(cl_uint));
    ASSERT_TRUE(setArgs(kernel_, out_));
  }

  clGetKernelSuggestedLocalWorkSizeKHR_fn suggest_ = nullptr;
  Kernel kernel_;
  Mem out_;
};

TEST_F(SuggestedLocalSizeTest, TheExtensionIsAlsoAPlatformExtension) {
  std::vector<std::string> names = split(platformString(platform_, CL_PLATFORM_EXTENSIONS), ' ');
  EXPECT_NE(names.end(), std::find(names.begin(), names.end(), "cl_khr_suggested_local_work_size"));
}

TEST_F(SuggestedLocalSizeTest, SuggestionIsWhatAnEnqueueWithoutLocalSizeRuns) {
  struct Case {
    cl_uint dims;
    std::array<size_t, 3> global, offset;
  };
  const Case cases[] = {
      {1, {1, 1, 1}, {0, 0, 0}},  {1, {4096, 1, 1}, {0, 0, 0}},  {1, {1000003, 1, 1}, {0, 0, 0}},
      {1, {96, 1, 1}, {7, 0, 0}}, {2, {640, 480, 1}, {0, 0, 0}}, {2, {17, 33, 1}, {3, 5, 0}},
      {3, {64, 8, 6}, {0, 0, 0}}, {3, {5, 7, 11}, {1, 1, 1}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message()
                 << c.dims << "D " << c.global[0] << "x" << c.global[1] << "x" << c.global[2]);
    std::array<size_t, 3> suggested{1, 1, 1};
    ASSERT_CL_SUCCESS(
        suggest_(queue_, kernel_, c.dims, c.offset.data(), c.global.data(), suggested.data()));
    size_t items = 1;
    for (cl_uint dim = 0; dim < c.dims; ++dim) {
      EXPECT_GE(suggested[dim], 1u);
      items *= suggested[dim];
    }
    EXPECT_LE(items, workGroupInfo<size_t>(kernel_, device_, CL_KERNEL_WORK_GROUP_SIZE));
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue_, kernel_, c.dims, c.offset.data(),
                                             c.global.data(), nullptr, 0, nullptr, nullptr));
    std::vector<cl_uint> ran = read<cl_uint>(out_, 3);
    for (cl_uint dim = 0; dim < 3; ++dim)
      EXPECT_EQ(suggested[dim], ran[dim]) << "dimension " << dim;
  }
}

TEST_F(SuggestedLocalSizeTest, RequiredWorkGroupSizeIsTheSuggestion) {
  Kernel required = buildKernel(kSource, "required", "-cl-std=CL3.0");
  ASSERT_TRUE(required);
  ASSERT_TRUE(setArgs(required, out_));
  size_t global[] = {64, 8};
  size_t suggested[2] = {0, 0};
  ASSERT_CL_SUCCESS(suggest_(queue_, required, 2, nullptr, global, suggested));
  EXPECT_EQ(8u, suggested[0]);
  EXPECT_EQ(2u, suggested[1]);
}

TEST_F(SuggestedLocalSizeTest, BadArgumentsGetTheSpecifiedErrors) {
  size_t global[] = {64, 64, 64};
  size_t suggested[3];
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  suggest_(nullptr, kernel_, 1, nullptr, global, suggested));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, suggest_(queue_, nullptr, 1, nullptr, global, suggested));
  EXPECT_CL_ERROR(CL_INVALID_WORK_DIMENSION,
                  suggest_(queue_, kernel_, 0, nullptr, global, suggested));
  EXPECT_CL_ERROR(CL_INVALID_WORK_DIMENSION,
                  suggest_(queue_, kernel_, 4, nullptr, global, suggested));
  EXPECT_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE,
                  suggest_(queue_, kernel_, 1, nullptr, nullptr, suggested));
  size_t zero[] = {64, 0};
  EXPECT_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE,
                  suggest_(queue_, kernel_, 2, nullptr, zero, suggested));
  size_t offset[] = {SIZE_MAX - 10};
  EXPECT_CL_ERROR(CL_INVALID_GLOBAL_OFFSET,
                  suggest_(queue_, kernel_, 1, offset, global, suggested));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, suggest_(queue_, kernel_, 1, nullptr, global, nullptr));

  // Arguments not set.
  Kernel unset = buildKernel(kSource, "enqueuedSize", "-cl-std=CL3.0");
  ASSERT_TRUE(unset);
  EXPECT_CL_ERROR(CL_INVALID_KERNEL_ARGS, suggest_(queue_, unset, 1, nullptr, global, suggested));

  // A queue of another context.
  cl_int error = CL_SUCCESS;
  Context other(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Queue otherQueue(clCreateCommandQueueWithProperties(other, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, suggest_(otherQueue, kernel_, 1, nullptr, global, suggested));
}

} // namespace
