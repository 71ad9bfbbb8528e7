// Kernels real programs contain that a strict compiler would turn away or choke on: old C
// constructs that NVIDIA's, AMD's, Intel's and older Clang-based compilers accept with a warning
// (errors only under -Werror), and OpenCL's opaque types kept in memory (an array of event_t,
// an event live across a barrier).
#include "cl_test.hpp"

using namespace cltest;

namespace {

class CompilerCompatTest : public ClTest {
protected:
  /// Builds `source`, expecting success and a warning whose message contains `diagnostic`.
  Program buildWithWarning(const std::string &source, const std::string &diagnostic) {
    BuildResult result = tryBuild(context_, device_, source);
    EXPECT_CL_SUCCESS(result.error) << result.log;
    EXPECT_NE(std::string::npos, result.log.find("warning")) << result.log;
    EXPECT_NE(std::string::npos, result.log.find(diagnostic)) << result.log;
    return std::move(result.program);
  }
  /// Expects `source` to fail under -Werror, with `diagnostic` in the log.
  void expectErrorUnderWerror(const std::string &source, const std::string &diagnostic) {
    BuildResult result = tryBuild(context_, device_, source, "-Werror");
    EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
    EXPECT_NE(std::string::npos, result.log.find("error")) << result.log;
    EXPECT_NE(std::string::npos, result.log.find(diagnostic)) << result.log;
  }
};

// The OpenCL Programming Guide, chapter 7: `__global * buffer` declares a pointer to int.
const char *kImplicitInt = R"(
  __kernel void square(__global * buffer) {
    size_t id = get_global_id(0);
    buffer[id] = buffer[id] * buffer[id];
  })";

TEST_F(CompilerCompatTest, ImplicitIntIsAWarningAndMeansInt) {
  Program program = buildWithWarning(kImplicitInt, "defaults to 'int'");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "square");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<cl_int> values(256);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<cl_int>(i) - 100;
  Mem buffer = bufferWith(values);
  ASSERT_TRUE(setArgs(kernel, buffer));
  ASSERT_TRUE(run1D(kernel, values.size()));
  std::vector<cl_int> expected(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    expected[i] = values[i] * values[i];
  EXPECT_TRUE(equalArrays(expected, read<cl_int>(buffer, values.size())));
}

TEST_F(CompilerCompatTest, ImplicitIntIsAnErrorUnderWerror) {
  expectErrorUnderWerror(kImplicitInt, "defaults to 'int'");
}

// clFFT's generated kernels: a float2 buffer written through a float4 pointer.
const char *kIncompatiblePointers = R"(
  __kernel void widen(__global float2 *bufOut, __global const float2 *bufIn) {
    __global float4 *out = bufOut;
    __global const float4 *in = bufIn;
    size_t i = get_global_id(0);
    out[i] = in[i] * 2.0f;
  })";

TEST_F(CompilerCompatTest, IncompatiblePointerTypesAreAWarning) {
  Program program = buildWithWarning(kIncompatiblePointers, "incompatible pointer types");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "widen");
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t kItems = 128;
  std::vector<cl_float> input(kItems * 4);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>(i) * 0.5f;
  Mem in = bufferWith(input), out = createBuffer(CL_MEM_READ_WRITE, input.size() * 4);
  ASSERT_TRUE(setArgs(kernel, out, in));
  ASSERT_TRUE(run1D(kernel, kItems));
  std::vector<cl_float> expected(input.size());
  for (size_t i = 0; i < input.size(); ++i)
    expected[i] = input[i] * 2.0f;
  EXPECT_TRUE(equalArrays(expected, read<cl_float>(out, input.size())));
}

TEST_F(CompilerCompatTest, IncompatiblePointerTypesAreAnErrorUnderWerror) {
  expectErrorUnderWerror(kIncompatiblePointers, "incompatible pointer types");
}

const char *kIntConversion = R"(
  __kernel void store_address(__global int *out) {
    int truncated = out;   // pointer to integer
    __global int *p = 0x0; // fine: a null pointer constant
    out[get_global_id(0)] = (truncated & 0) + (p == 0);
  })";

// (PoCL 3.1's Clang 15 already makes this one an error.)
TEST_F(CompilerCompatTest, IntConversionIsAWarning) {
  Program program = buildWithWarning(kIntConversion, "incompatible pointer to integer conversion");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "store_address");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 64));
  EXPECT_EQ(std::vector<cl_int>(64, 1), read<cl_int>(out, 64));
}

TEST_F(CompilerCompatTest, IntConversionIsAnErrorUnderWerror) {
  expectErrorUnderWerror(kIntConversion, "incompatible pointer to integer conversion");
}

// Implicit function declarations stay errors: OpenCL C forbids them outright.
TEST_F(CompilerCompatTest, ImplicitFunctionDeclarationStaysAnError) {
  BuildResult result = tryBuild(context_, device_, R"(
    kernel void k(global int *out) { out[0] = undeclared_function(1); })");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
  EXPECT_NE(std::string::npos, result.log.find("undeclared_function")) << result.log;
}

// ---------------------------------------------------------------------------------------------
// Opaque types in memory

// Double-buffered asynchronous copies with the events kept in a private array, as the book's
// chapter 22 SpMV kernel does; the array lives across the barrier.
TEST_F(CompilerCompatTest, EventArrayAcrossBarriersCompilesAndRuns) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global const float *in, global float *out, local float *tile, int n) {
      event_t ev[2]; int t = 0;
      for (int i = 0; i < n; i++) {
        ev[t] = async_work_group_copy(tile + t * 64, in + i * 64, 64, (event_t)0);
        wait_group_events(1, &ev[t]);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i * 64 + get_local_id(0)] = tile[t * 64 + get_local_id(0)];
        t = 1 - t; }
      wait_group_events(2, ev); })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  constexpr int kBlocks = 8;
  std::vector<cl_float> input(kBlocks * 64);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>(i) + 0.25f;
  Mem in = bufferWith(input), out = createBuffer(CL_MEM_READ_WRITE, input.size() * 4);
  ASSERT_TRUE(setArgs(kernel, in, out, LocalSize{2 * 64 * sizeof(cl_float)}, cl_int{kBlocks}));
  ASSERT_TRUE(run1D(kernel, 64, 64));
  EXPECT_TRUE(equalArrays(input, read<cl_float>(out, input.size())));
}

// An event made before a barrier and waited for after it, and events passed to and returned
// from a helper function.
TEST_F(CompilerCompatTest, EventsLiveAcrossBarriersAndThroughFunctions) {
  Kernel kernel = buildKernel(R"(
    event_t start(local float *tile, global const float *in, size_t n) {
      return async_work_group_copy(tile, in, n, (event_t)0);
    }
    void finish(event_t event) { wait_group_events(1, &event); }
    kernel void k(global const float *in, global float *out, local float *tile) {
      event_t copy = start(tile, in + get_group_id(0) * get_local_size(0), get_local_size(0));
      barrier(CLK_GLOBAL_MEM_FENCE);
      finish(copy);
      barrier(CLK_LOCAL_MEM_FENCE);
      size_t l = get_local_id(0);
      out[get_global_id(0)] = tile[get_local_size(0) - 1 - l];
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t kItems = 512, kLocal = 32;
  std::vector<cl_float> input(kItems);
  for (size_t i = 0; i < kItems; ++i)
    input[i] = static_cast<float>(i);
  Mem in = bufferWith(input), out = createBuffer(CL_MEM_READ_WRITE, kItems * 4);
  ASSERT_TRUE(setArgs(kernel, in, out, LocalSize{kLocal * sizeof(cl_float)}));
  ASSERT_TRUE(run1D(kernel, kItems, kLocal));
  std::vector<cl_float> expected(kItems);
  for (size_t i = 0; i < kItems; ++i)
    expected[i] = input[(i / kLocal) * kLocal + (kLocal - 1 - i % kLocal)];
  EXPECT_TRUE(equalArrays(expected, read<cl_float>(out, kItems)));
}

} // namespace
