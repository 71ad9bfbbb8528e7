// What safe integer division costs: kernels that divide and take remainders of whole buffers,
// timed on the device (event profiling). Kiln guards every division against a zero divisor and
// INT_MIN / -1; this shows the guard keeps the loops vectorized. The divisors here are never zero,
// so a Kiln built before the guard runs them too: compare that, Kiln and PoCL in one session:
//
//   OCL_ICD_VENDORS=build/icd build/bench/kiln-integer-division
//   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd build/bench/kiln-integer-division
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr size_t kElements = size_t{1} << 22;

const char *kSource = R"(
  kernel void div_int(global const int *a, global const int *b, global int *c) {
    size_t i = get_global_id(0); c[i] = a[i] / b[i]; }
  kernel void rem_uint(global const uint *a, global const uint *b, global uint *c) {
    size_t i = get_global_id(0); c[i] = a[i] % b[i]; }
  kernel void div_long(global const long *a, global const long *b, global long *c) {
    size_t i = get_global_id(0); c[i] = a[i] / b[i]; }
  kernel void divrem_short8(global const short8 *a, global const short8 *b, global short8 *c) {
    size_t i = get_global_id(0); c[i] = a[i] / b[i] + a[i] % b[i]; }
  kernel void div_by_argument(global const int *a, int divisor, global int *c) {
    size_t i = get_global_id(0); c[i] = a[i] / divisor; }
)";

/// One context, queue and program for the whole run; buffers of kElements 64-bit values.
class DivisionBench {
public:
  static DivisionBench &instance() {
    static DivisionBench bench;
    return bench;
  }

  bool ready() const { return ready_; }

  /// Runs kernel `name` over `items` work-items once; returns the device time in seconds.
  double run(const char *name, size_t items, bool scalarDivisor) {
    cl_int error = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program_, name, &error);
    if (error != CL_SUCCESS)
      return -1;
    cl_int divisor = 7;
    clSetKernelArg(kernel, 0, sizeof(cl_mem), &a_);
    if (scalarDivisor)
      clSetKernelArg(kernel, 1, sizeof divisor, &divisor);
    else
      clSetKernelArg(kernel, 1, sizeof(cl_mem), &b_);
    clSetKernelArg(kernel, 2, sizeof(cl_mem), &c_);
    cl_event event = nullptr;
    error = clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &items, nullptr, 0, nullptr, &event);
    clReleaseKernel(kernel);
    if (error != CL_SUCCESS || clWaitForEvents(1, &event) != CL_SUCCESS)
      return -1;
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    clReleaseEvent(event);
    return static_cast<double>(end - start) * 1e-9;
  }

private:
  DivisionBench() {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS)
      return;
    cl_int error = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
    cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    queue_ = clCreateCommandQueueWithProperties(context_, device, properties, &error);
    program_ = clCreateProgramWithSource(context_, 1, &kSource, nullptr, &error);
    if (error != CL_SUCCESS || clBuildProgram(program_, 1, &device, "", nullptr, nullptr) != 0)
      return;
    // Each type reads the buffers as its own width, so every byte of a divisor is in 1..254:
    // no view of them is zero or -1, and a Kiln without the guard runs these too.
    std::mt19937_64 random(42);
    std::vector<int64_t> dividends(kElements), divisors(kElements);
    for (size_t i = 0; i < kElements; ++i) {
      dividends[i] = static_cast<int64_t>(random());
      uint64_t bytes = 0;
      for (int byte = 0; byte < 8; ++byte)
        bytes = bytes << 8 | (1 + random() % 254);
      divisors[i] = static_cast<int64_t>(bytes);
    }
    const size_t bytes = kElements * sizeof(int64_t);
    a_ = clCreateBuffer(context_, CL_MEM_COPY_HOST_PTR, bytes, dividends.data(), &error);
    b_ = clCreateBuffer(context_, CL_MEM_COPY_HOST_PTR, bytes, divisors.data(), &error);
    c_ = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &error);
    ready_ = error == CL_SUCCESS;
  }

  ~DivisionBench() {
    for (cl_mem buffer : {a_, b_, c_})
      if (buffer != nullptr)
        clReleaseMemObject(buffer);
    if (program_ != nullptr)
      clReleaseProgram(program_);
    if (queue_ != nullptr)
      clReleaseCommandQueue(queue_);
    if (context_ != nullptr)
      clReleaseContext(context_);
  }

  bool ready_ = false;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_mem a_ = nullptr, b_ = nullptr, c_ = nullptr;
};

/// Times `kernel` over `items` work-items, each handling `elementsPerItem` divisions.
void divide(benchmark::State &state, const char *kernel, size_t items, size_t elementsPerItem,
            bool scalarDivisor) {
  DivisionBench &bench = DivisionBench::instance();
  if (!bench.ready()) {
    state.SkipWithError("no OpenCL device, or the program did not build");
    return;
  }
  for (auto _ : state) {
    double seconds = bench.run(kernel, items, scalarDivisor);
    if (seconds < 0) {
      state.SkipWithError("the kernel failed");
      return;
    }
    state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * items * elementsPerItem));
}

BENCHMARK_CAPTURE(divide, int_quotient, "div_int", kElements, 1, false)->UseManualTime();
BENCHMARK_CAPTURE(divide, uint_remainder, "rem_uint", kElements, 1, false)->UseManualTime();
BENCHMARK_CAPTURE(divide, long_quotient, "div_long", kElements, 1, false)->UseManualTime();
BENCHMARK_CAPTURE(divide, short8_quotient_and_remainder, "divrem_short8", kElements / 8 * 2, 8,
                  false)
    ->UseManualTime();
BENCHMARK_CAPTURE(divide, int_by_kernel_argument, "div_by_argument", kElements, 1, true)
    ->UseManualTime();

} // namespace

BENCHMARK_MAIN();
