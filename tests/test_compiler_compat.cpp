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

namespace {

// Programs written for NVIDIA's driver check cl_nv_device_attribute_query and then put PTX in
// `asm` statements (hashcat's byte permutes, CLBlast's shuffles). The GPU device runs them; the
// CPU device, whose assembly language is not PTX, refuses them with a build log.
const char *kBytePermute = R"(
  uint byte_permute(uint a, uint b, uint selector) {
    uint r;
    asm volatile("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(selector));
    return r;
  }
  kernel void permute(global const uint *in, global uint *out) {
    size_t i = get_global_id(0);
    out[i] = byte_permute(in[i], in[i + 1], 0x6240 + (uint)i % 7);
  })";

/// PTX's prmt.b32 in its default mode: each selector nibble picks one of the 8 bytes of {b, a}.
uint32_t bytePermute(uint32_t a, uint32_t b, uint32_t selector) {
  uint64_t bytes = uint64_t{b} << 32 | a;
  uint32_t result = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t nibble = selector >> (4 * i) & 0xf;
    uint32_t byte = bytes >> (8 * (nibble & 7)) & 0xff;
    if (nibble & 8) // sign replication of the chosen byte
      byte = byte & 0x80 ? 0xff : 0;
    result |= byte << (8 * i);
  }
  return result;
}

} // namespace

TEST_F(CompilerCompatTest, PtxInAsmStatementsRunsOnTheGpuAndIsRefusedOnTheCpu) {
  bool gpu = deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU;
  BuildResult result = tryBuild(context_, device_, kBytePermute);
  if (!gpu) {
    EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
    EXPECT_NE(std::string::npos, result.log.find("asm")) << result.log;
    // `asm` is no keyword there: an ordinary name.
    Kernel named = buildKernel("kernel void k(global int *p) { int asm = 3; p[0] = asm; }", "k");
    EXPECT_TRUE(named);
    return;
  }
  ASSERT_CL_SUCCESS(result.error) << result.log;
  Kernel kernel = createKernel(result.program, "permute");
  const size_t count = 256;
  std::vector<cl_uint> in(count + 1);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = cl_uint(0x9e3779b9u * (i + 1));
  Mem input =
      createBuffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * sizeof(cl_uint), in.data());
  Mem out = createBuffer(CL_MEM_WRITE_ONLY, count * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(kernel, input, out));
  ASSERT_TRUE(run1D(kernel, count, 64));
  std::vector<cl_uint> seen = read<cl_uint>(out, count);
  for (size_t i = 0; i < count; ++i)
    ASSERT_EQ(bytePermute(in[i], in[i + 1], 0x6240 + i % 7), seen[i]) << i;
}

// PTX's own register classes in asm operands, as programs written for NVIDIA's driver name them:
// CLBlast's shuffle of a float (`f`), a double (`d`), 64 bits (`l`) and 16 (`h`). The last
// operand (`r` on a 64-bit value) needs the 64-bit class too, which PTX spells `l`.
const char *kPtxRegisterClasses = R"(
  #pragma OPENCL EXTENSION cl_khr_fp64 : enable
  kernel void classes(global float *f, global double *d, global ulong *l, global ushort *h,
                      global ulong *r) {
    size_t i = get_global_id(0);
    int source = ((int)i + 3) % 32;
    float shuffled;
    double doubled;
    ulong swapped, incremented;
    ushort sum;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=f"(shuffled) : "f"(f[i]), "r"(source));
    __asm__("add.rn.f64 %0, %1, %1;" : "=d"(doubled) : "d"(d[i]));
    asm("{ .reg .b32 lo, hi; mov.b64 {lo, hi}, %1; mov.b64 %0, {hi, lo}; }"
        : "=l"(swapped) : "l"(l[i]));
    asm("add.u16 %0, %1, %2;" : "=h"(sum) : "h"(h[i]), "h"((ushort)i));
    asm("add.u64 %0, %1, 1;" : "=r"(incremented) : "r"(r[i]));
    f[i] = shuffled;
    d[i] = doubled;
    l[i] = swapped;
    h[i] = sum;
    r[i] = incremented;
  })";

TEST_F(CompilerCompatTest, PtxRegisterClassesInAsmOperandsOnTheGpu) {
  bool gpu = deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU;
  BuildResult result = tryBuild(context_, device_, kPtxRegisterClasses);
  if (!gpu) {
    EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
    return;
  }
  ASSERT_CL_SUCCESS(result.error) << result.log;
  Kernel kernel = createKernel(result.program, "classes");
  const size_t count = 256;
  std::vector<float> floats(count);
  std::vector<double> doubles(count);
  std::vector<cl_ulong> longs(count);
  std::vector<cl_ushort> shorts(count);
  for (size_t i = 0; i < count; ++i) {
    floats[i] = 0.5f + float(i);
    doubles[i] = 1.0 / double(i + 1);
    longs[i] = 0x0123456789abcdefull * (i + 1);
    shorts[i] = cl_ushort(65000 + i);
  }
  const cl_mem_flags flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
  Mem f = createBuffer(flags, count * sizeof(float), floats.data());
  Mem d = createBuffer(flags, count * sizeof(double), doubles.data());
  Mem l = createBuffer(flags, count * sizeof(cl_ulong), longs.data());
  Mem h = createBuffer(flags, count * sizeof(cl_ushort), shorts.data());
  Mem r = createBuffer(flags, count * sizeof(cl_ulong), longs.data());
  ASSERT_TRUE(setArgs(kernel, f, d, l, h, r));
  ASSERT_TRUE(run1D(kernel, count, 64));
  std::vector<float> shuffled = read<float>(f, count);
  std::vector<double> doubled = read<double>(d, count);
  std::vector<cl_ulong> swapped = read<cl_ulong>(l, count);
  std::vector<cl_ushort> added = read<cl_ushort>(h, count);
  std::vector<cl_ulong> incremented = read<cl_ulong>(r, count);
  for (size_t i = 0; i < count; ++i) {
    size_t warp = i / 32 * 32;
    ASSERT_EQ(floats[warp + (i + 3) % 32], shuffled[i]) << i;
    ASSERT_EQ(doubles[i] * 2, doubled[i]) << i;
    ASSERT_EQ(longs[i] << 32 | longs[i] >> 32, swapped[i]) << i;
    ASSERT_EQ(cl_ushort(shorts[i] + i), added[i]) << i;
    ASSERT_EQ(longs[i] + 1, incremented[i]) << i;
  }
}

TEST_F(CompilerCompatTest, NvidiaDeviceAttributesOnTheGpuOnly) {
  cl_uint major = 0;
  cl_int error = clGetDeviceInfo(device_, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major,
                                 &major, nullptr);
  if (!hasExtension(device_, "cl_nv_device_attribute_query")) {
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
    return;
  }
  ASSERT_CL_SUCCESS(error);
  EXPECT_GE(major, 7u);
  cl_uint warp = 0, registers = 0;
  ASSERT_CL_SUCCESS(clGetDeviceInfo(device_, CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, nullptr));
  EXPECT_EQ(32u, warp);
  ASSERT_CL_SUCCESS(clGetDeviceInfo(device_, CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof registers,
                                    &registers, nullptr));
  EXPECT_GE(registers, 32768u);
  cl_bool integrated = CL_TRUE;
  ASSERT_CL_SUCCESS(clGetDeviceInfo(device_, CL_DEVICE_INTEGRATED_MEMORY_NV, sizeof integrated,
                                    &integrated, nullptr));
  EXPECT_EQ(CL_FALSE, integrated);
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetDeviceInfo(device_, CL_DEVICE_WARP_SIZE_NV, 1, &warp, nullptr));
}
