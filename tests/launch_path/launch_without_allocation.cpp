// The launch path of a kernel already used allocates nothing: clEnqueueNDRangeKernel + clFinish
// take their event, command, job and argument block from Kiln's recycled blocks. This program
// replaces the global operator new (which every library in the process then uses, Kiln
// included), counts the calls made while it launches a kernel many times, and checks both the
// count and the kernel's results. Not built with sanitizers: they replace operator new too.
#include <CL/cl.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

namespace {

std::atomic<long> allocationCount{0};

void *countedAllocation(std::size_t size, std::size_t alignment) {
  allocationCount.fetch_add(1, std::memory_order_relaxed);
  if (size == 0)
    size = 1;
  void *block = alignment > alignof(std::max_align_t)
                    ? std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment)
                    : std::malloc(size);
  if (block == nullptr)
    throw std::bad_alloc();
  return block;
}

int fail(const char *what, cl_int error) {
  std::fprintf(stderr, "FAILED: %s (%d)\n", what, error);
  return 1;
}

} // namespace

void *operator new(std::size_t size) {
  return countedAllocation(size, 0);
}
void *operator new[](std::size_t size) {
  return countedAllocation(size, 0);
}
void *operator new(std::size_t size, std::align_val_t alignment) {
  return countedAllocation(size, static_cast<std::size_t>(alignment));
}
void *operator new[](std::size_t size, std::align_val_t alignment) {
  return countedAllocation(size, static_cast<std::size_t>(alignment));
}
void operator delete(void *block) noexcept {
  std::free(block);
}
void operator delete[](void *block) noexcept {
  std::free(block);
}
void operator delete(void *block, std::size_t) noexcept {
  std::free(block);
}
void operator delete[](void *block, std::size_t) noexcept {
  std::free(block);
}
void operator delete(void *block, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete[](void *block, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete(void *block, std::size_t, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete[](void *block, std::size_t, std::align_val_t) noexcept {
  std::free(block);
}

int main() {
  constexpr size_t kItems = 256;
  constexpr int kWarmUpLaunches = 50;
  constexpr int kLaunches = 2000;
  cl_int error = CL_SUCCESS;
  cl_platform_id platform;
  cl_device_id device;
  if ((error = clGetPlatformIDs(1, &platform, nullptr)) != CL_SUCCESS)
    return fail("clGetPlatformIDs", error);
  if ((error = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, nullptr)))
    return fail("clGetDeviceIDs", error);
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
  if (error != CL_SUCCESS)
    return fail("clCreateContext", error);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &error);
  if (error != CL_SUCCESS)
    return fail("clCreateCommandQueueWithProperties", error);
  const char *source = "kernel void bump(global int *counts, int step) {\n"
                       "  counts[get_global_id(0)] += step + (int)get_local_id(0) % 3;\n"
                       "}\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &error);
  if (error != CL_SUCCESS || (error = clBuildProgram(program, 1, &device, "", nullptr, nullptr)))
    return fail("building the program", error);
  cl_kernel kernel = clCreateKernel(program, "bump", &error);
  if (error != CL_SUCCESS)
    return fail("clCreateKernel", error);
  std::vector<cl_int> counts(kItems, 0);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 kItems * sizeof(cl_int), counts.data(), &error);
  if (error != CL_SUCCESS)
    return fail("clCreateBuffer", error);
  cl_int step = 2;
  clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  clSetKernelArg(kernel, 1, sizeof step, &step);

  size_t global = kItems, local = 64;
  auto launch = [&] {
    cl_int status =
        clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    return status != CL_SUCCESS ? status : clFinish(queue);
  };
  for (int index = 0; index < kWarmUpLaunches; ++index)
    if ((error = launch()) != CL_SUCCESS)
      return fail("a warm-up launch", error);

  long before = allocationCount.load();
  for (int index = 0; index < kLaunches; ++index)
    if ((error = launch()) != CL_SUCCESS)
      return fail("a launch", error);
  long allocations = allocationCount.load() - before;

  if ((error = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, kItems * sizeof(cl_int),
                                   counts.data(), 0, nullptr, nullptr)))
    return fail("clEnqueueReadBuffer", error);
  int wrong = 0;
  for (size_t item = 0; item < kItems; ++item) {
    cl_int expected = (kWarmUpLaunches + kLaunches) * (step + static_cast<cl_int>(item % 64 % 3));
    wrong += counts[item] != expected;
  }
  clReleaseMemObject(buffer);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);

  // The blocks in use at once are bounded by the commands in flight (two or three here). A
  // worker delayed by a loaded machine can briefly hold one more, which costs one new block;
  // the bound leaves room for that, far below one allocation per launch.
  std::printf("%d launches: %ld allocations, %d wrong results\n", kLaunches, allocations, wrong);
  if (wrong != 0)
    return fail("the kernel's results", wrong);
  if (allocations > kLaunches / 100)
    return fail("allocations on the launch path", static_cast<cl_int>(allocations));
  return 0;
}
