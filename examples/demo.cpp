// Kiln's demo: lists every OpenCL platform and device the ICD loader finds, then multiplies two
// matrices with a tiled kernel (local memory and barriers) on the default device, checks the
// result against the host and prints the timings.
//
// It uses only the standard OpenCL API, like any application: run it with OCL_ICD_VENDORS
// pointing at a folder holding kiln.icd (the build makes one in build/icd).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

void check(cl_int error, const char *what) {
  if (error != CL_SUCCESS) {
    std::fprintf(stderr, "demo: %s failed with error %d\n", what, error);
    std::exit(1);
  }
}

std::string platformText(cl_platform_id platform, cl_platform_info param) {
  size_t size = 0;
  check(clGetPlatformInfo(platform, param, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  check(clGetPlatformInfo(platform, param, size, text.data(), nullptr), "clGetPlatformInfo");
  text.resize(size > 0 ? size - 1 : 0);
  return text;
}

std::string deviceText(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  check(clGetDeviceInfo(device, param, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  check(clGetDeviceInfo(device, param, size, text.data(), nullptr), "clGetDeviceInfo");
  text.resize(size > 0 ? size - 1 : 0);
  return text;
}

template <typename T> T deviceValue(cl_device_id device, cl_device_info param) {
  T value{};
  check(clGetDeviceInfo(device, param, sizeof value, &value, nullptr), "clGetDeviceInfo");
  return value;
}

void listDevices() {
  cl_uint platformCount = 0;
  check(clGetPlatformIDs(0, nullptr, &platformCount), "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platformCount);
  check(clGetPlatformIDs(platformCount, platforms.data(), nullptr), "clGetPlatformIDs");
  for (cl_platform_id platform : platforms) {
    std::printf("Platform: %s (%s)\n", platformText(platform, CL_PLATFORM_NAME).c_str(),
                platformText(platform, CL_PLATFORM_VERSION).c_str());
    cl_uint deviceCount = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &deviceCount) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devices(deviceCount);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, deviceCount, devices.data(), nullptr),
          "clGetDeviceIDs");
    for (cl_device_id device : devices)
      std::printf("  Device: %s, %u compute units, %s\n",
                  deviceText(device, CL_DEVICE_NAME).c_str(),
                  deviceValue<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS),
                  deviceText(device, CL_DEVICE_VERSION).c_str());
  }
}

const char *kMatrixMultiply = R"CLC(
// C = A * B for square n x n matrices, n a multiple of TILE. Each work-group computes one
// TILE x TILE block of C, staging blocks of A and B through local memory.
kernel void multiply(global const float *a, global const float *b, global float *c, int n) {
  local float tileA[TILE][TILE];
  local float tileB[TILE][TILE];
  int column = get_global_id(0), row = get_global_id(1);
  int x = get_local_id(0), y = get_local_id(1);
  float sum = 0.0f;
  for (int start = 0; start < n; start += TILE) {
    tileA[y][x] = a[row * n + start + x];
    tileB[y][x] = b[(start + y) * n + column];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k)
      sum += tileA[y][k] * tileB[k][x];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + column] = sum;
}
)CLC";

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void runMatrixMultiply(int n, int tile) {
  cl_platform_id platform;
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  cl_device_id device;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, nullptr), "clGetDeviceIDs");
  std::printf("\nMatrix multiplication %dx%d (tile %d) on %s\n", n, n, tile,
              deviceText(device, CL_DEVICE_NAME).c_str());

  cl_int error;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
  check(error, "clCreateContext");
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, properties, &error);
  check(error, "clCreateCommandQueueWithProperties");

  auto buildStart = std::chrono::steady_clock::now();
  cl_program program = clCreateProgramWithSource(context, 1, &kMatrixMultiply, nullptr, &error);
  check(error, "clCreateProgramWithSource");
  std::string options = "-DTILE=" + std::to_string(tile);
  if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    std::fprintf(stderr, "demo: build failed:\n%s\n", log.c_str());
    std::exit(1);
  }
  cl_kernel kernel = clCreateKernel(program, "multiply", &error);
  check(error, "clCreateKernel");
  double buildMs = millisecondsSince(buildStart);

  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
  std::mt19937 random(42);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  for (float &value : a)
    value = values(random);
  for (float &value : b)
    value = values(random);
  size_t bytes = a.size() * sizeof(float);
  cl_mem bufferA =
      clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data(), &error);
  check(error, "clCreateBuffer");
  cl_mem bufferB =
      clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b.data(), &error);
  check(error, "clCreateBuffer");
  cl_mem bufferC = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, nullptr, &error);
  check(error, "clCreateBuffer");
  check(clSetKernelArg(kernel, 0, sizeof bufferA, &bufferA), "clSetKernelArg");
  check(clSetKernelArg(kernel, 1, sizeof bufferB, &bufferB), "clSetKernelArg");
  check(clSetKernelArg(kernel, 2, sizeof bufferC, &bufferC), "clSetKernelArg");
  check(clSetKernelArg(kernel, 3, sizeof n, &n), "clSetKernelArg");

  size_t global[2] = {size_t(n), size_t(n)};
  size_t local[2] = {size_t(tile), size_t(tile)};
  cl_event event;
  auto runStart = std::chrono::steady_clock::now();
  check(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global, local, 0, nullptr, &event),
        "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(queue, bufferC, CL_TRUE, 0, bytes, c.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  double wallMs = millisecondsSince(runStart);
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
        "clGetEventProfilingInfo");
  check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
        "clGetEventProfilingInfo");
  double kernelMs = (end - start) / 1e6;

  // Check a sample of entries against the host (the whole check would take longer than the
  // kernel on a small machine).
  int mismatches = 0;
  for (int row = 0; row < n; row += 7)
    for (int column = 0; column < n; column += 5) {
      double expected = 0;
      for (int k = 0; k < n; ++k)
        expected += double(a[size_t(row) * n + k]) * b[size_t(k) * n + column];
      if (std::fabs(expected - c[size_t(row) * n + column]) > 1e-3 * n)
        ++mismatches;
    }
  double gflops = 2.0 * n * n * double(n) / (kernelMs * 1e6);
  std::printf("  build + kernel creation: %8.1f ms\n", buildMs);
  std::printf("  kernel:                  %8.1f ms (%.1f GFLOP/s)\n", kernelMs, gflops);
  std::printf("  kernel + read, wall:     %8.1f ms\n", wallMs);
  std::printf("  result: %s\n", mismatches == 0 ? "correct" : "WRONG");

  clReleaseEvent(event);
  clReleaseMemObject(bufferA);
  clReleaseMemObject(bufferB);
  clReleaseMemObject(bufferC);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  if (mismatches != 0)
    std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  int tile = argc > 2 ? std::atoi(argv[2]) : 16;
  if (n <= 0 || tile <= 0 || n % tile != 0) {
    std::fprintf(stderr, "usage: %s [n (multiple of tile)] [tile]\n", argv[0]);
    return 2;
  }
  listDevices();
  runMatrixMultiply(n, tile);
  return 0;
}
