// Kernels real programs contain that a strict compiler would turn away or choke on: old C
// constructs that NVIDIA's, AMD's, Intel's and older Clang-based compilers accept with a warning
// (errors only under -Werror), and OpenCL's opaque types kept in memory (an array of event_t,
// an event live across a barrier).
#include "cl_test.hpp"

using namespace cltest;

namespace {

class CompilerCompatTest : public ClTest {
protected:
  /// Builds `source` with `options`, expecting success and a warning naming `diagnostic`.
  Program buildWithWarning(const std::string &source, const std::string &diagnostic) {
    BuildResult result = tryBuild(context_, device_, source);
    EXPECT_CL_SUCCESS(result.error) << result.log;
    EXPECT_NE(std::string::npos, result.log.find("warning")) << result.log;
    EXPECT_NE(std::string::npos, result.log.find(diagnostic)) << result.log;
    return std::move(result.program);
  }
  /// Expects `source` to fail under -Werror with `diagnostic` in the log as an error.
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
  Program program = buildWithWarning(kImplicitInt, "-Wimplicit-int");
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
  expectErrorUnderWerror(kImplicitInt, "-Wimplicit-int");
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
  Program program = buildWithWarning(kIncompatiblePointers, "-Wincompatible-pointer-types");
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
  expectErrorUnderWerror(kIncompatiblePointers, "-Wincompatible-pointer-types");
}

const char *kIntConversion = R"(
  __kernel void store_address(__global int *out) {
    int truncated = out;   // pointer to integer
    __global int *p = 0x0; // fine: a null pointer constant
    out[get_global_id(0)] = (truncated & 0) + (p == 0);
  })";

TEST_F(CompilerCompatTest, IntConversionIsAWarning) {
  Program program = buildWithWarning(kIntConversion, "-Wint-conversion");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "store_address");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 64));
  EXPECT_EQ(std::vector<cl_int>(64, 1), read<cl_int>(out, 64));
}

TEST_F(CompilerCompatTest, IntConversionIsAnErrorUnderWerror) {
  expectErrorUnderWerror(kIntConversion, "-Wint-conversion");
}

// Implicit function declarations stay errors: OpenCL C forbids them outright.
TEST_F(CompilerCompatTest, ImplicitFunctionDeclarationStaysAnError) {
  BuildResult result = tryBuild(context_, device_, R"(
    kernel void k(global int *out) { out[0] = undeclared_function(1); })");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
  EXPECT_NE(std::string::npos, result.log.find("undeclared_function")) << result.log;
}

} // namespace
