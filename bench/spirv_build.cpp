// A program built from SPIR-V beside the same program built from OpenCL C source, on every
// device of every platform the ICD loader finds that reads SPIR-V: the build (clBuildProgram,
// median of several, each of a new program object with the on-disk caches off) and the
// kernels' time (median of several runs of each kernel of each build).
//
//   OCL_ICD_VENDORS=build/icd build/bench/kiln-spirv-build [blur.cl blur.spv]
//
// The SPIR-V is what Clang's SPIR-V back end makes of bench/spirv/blur.cl at build time
// (clang-22 --target=spirv64 -O2), as an offline tool chain would ship it.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kBuilds = 5;
constexpr int kRuns = 7;
constexpr int kImageSide = 2048;
constexpr int kMatrixSide = 512;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Input {
  std::string source;
  std::string il;
};

/// A new program from source or IL; null when it does not build.
cl_program buildProgram(cl_context context, cl_device_id device, const Input &input, bool fromIl) {
  cl_int error = CL_SUCCESS;
  const char *text = input.source.c_str();
  cl_program program =
      fromIl ? clCreateProgramWithIL(context, input.il.data(), input.il.size(), &error)
             : clCreateProgramWithSource(context, 1, &text, nullptr, &error);
  if (error != CL_SUCCESS)
    return nullptr;
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

/// Median milliseconds of building the program `kBuilds` times.
double buildTime(cl_context context, cl_device_id device, const Input &input, bool fromIl) {
  std::vector<double> times;
  for (int build = 0; build < kBuilds; ++build) {
    Clock::time_point start = Clock::now();
    cl_program program = buildProgram(context, device, input, fromIl);
    times.push_back(millisecondsSince(start));
    if (program == nullptr)
      return -1;
    clReleaseProgram(program);
  }
  return median(times);
}

/// Median milliseconds of one NDRange of `name` (arguments set by `setArgs`), run to finish.
template <typename SetArgs>
double kernelTime(cl_command_queue queue, cl_program program, const char *name, cl_uint dims,
                  const size_t *global, SetArgs &&setArgs) {
  cl_int error = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, name, &error);
  if (error != CL_SUCCESS)
    return -1;
  setArgs(kernel);
  std::vector<double> times;
  for (int run = 0; run <= kRuns; ++run) {
    Clock::time_point start = Clock::now();
    clEnqueueNDRangeKernel(queue, kernel, dims, nullptr, global, nullptr, 0, nullptr, nullptr);
    clFinish(queue);
    if (run > 0) // the first run compiles for the local size on some devices
      times.push_back(millisecondsSince(start));
  }
  clReleaseKernel(kernel);
  return median(times);
}

struct Buffers {
  cl_mem image_in, image_out, a, b, c;
};

Buffers makeBuffers(cl_context context) {
  size_t pixels = size_t{kImageSide} * kImageSide * 4 * sizeof(float);
  size_t matrix = size_t{kMatrixSide} * kMatrixSide * sizeof(float);
  std::vector<float> values(pixels / sizeof(float));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 97) / 97.0f;
  auto buffer = [&](size_t size, bool fill) {
    return clCreateBuffer(context, CL_MEM_READ_WRITE | (fill ? CL_MEM_COPY_HOST_PTR : 0), size,
                          fill ? values.data() : nullptr, nullptr);
  };
  return {buffer(pixels, true), buffer(pixels, false), buffer(matrix, true), buffer(matrix, true),
          buffer(matrix, false)};
}

void releaseBuffers(const Buffers &buffers) {
  for (cl_mem mem : {buffers.image_in, buffers.image_out, buffers.a, buffers.b, buffers.c})
    clReleaseMemObject(mem);
}

void measureDevice(cl_platform_id platform, cl_device_id device, const Input &input) {
  char platformName[256] = {}, deviceName[256] = {}, ils[512] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platformName, platformName, nullptr);
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof deviceName, deviceName, nullptr);
  clGetDeviceInfo(device, CL_DEVICE_IL_VERSION, sizeof ils, ils, nullptr);
  std::printf("%s, %s\n", platformName, deviceName);
  if (ils[0] == '\0') {
    std::printf("  reads no SPIR-V\n");
    return;
  }
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, nullptr);
  Buffers buffers = makeBuffers(context);
  std::printf("  %-8s %12s %12s %12s\n", "from", "build ms", "blur ms", "sgemm ms");
  for (bool fromIl : {false, true}) {
    double build = buildTime(context, device, input, fromIl);
    cl_program program = buildProgram(context, device, input, fromIl);
    if (program == nullptr) {
      std::printf("  %-8s does not build\n", fromIl ? "SPIR-V" : "source");
      continue;
    }
    int side = kImageSide, n = kMatrixSide;
    float k = 0.75f;
    size_t imageRange[2] = {kImageSide, kImageSide}, matrixRange[2] = {kMatrixSide, kMatrixSide};
    double blur = kernelTime(queue, program, "blur", 2, imageRange, [&](cl_kernel kernel) {
      clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffers.image_in);
      clSetKernelArg(kernel, 1, sizeof(cl_mem), &buffers.image_out);
      clSetKernelArg(kernel, 2, sizeof side, &side);
      clSetKernelArg(kernel, 3, sizeof side, &side);
      clSetKernelArg(kernel, 4, sizeof k, &k);
    });
    double sgemm = kernelTime(queue, program, "sgemm", 2, matrixRange, [&](cl_kernel kernel) {
      clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffers.a);
      clSetKernelArg(kernel, 1, sizeof(cl_mem), &buffers.b);
      clSetKernelArg(kernel, 2, sizeof(cl_mem), &buffers.c);
      clSetKernelArg(kernel, 3, sizeof n, &n);
    });
    std::printf("  %-8s %12.1f %12.2f %12.2f\n", fromIl ? "SPIR-V" : "source", build, blur, sgemm);
    clReleaseProgram(program);
  }
  releaseBuffers(buffers);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

} // namespace

int main(int argc, char **argv) {
  // Every build must compile: no on-disk caches.
  setenv("KILN_CACHE", "0", 1);
  setenv("POCL_KERNEL_CACHE", "0", 1);
  Input input{readFile(argc > 2 ? argv[1] : KILN_BENCH_SPIRV_SOURCE),
              readFile(argc > 2 ? argv[2] : KILN_BENCH_SPIRV_MODULE)};
  if (input.source.empty() || input.il.empty()) {
    std::fprintf(stderr, "usage: kiln-spirv-build [program.cl program.spv]\n");
    return 1;
  }
  cl_platform_id platforms[16];
  cl_uint count = 0;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS)
    return 1;
  for (cl_uint index = 0; index < count; ++index) {
    cl_device_id devices[16];
    cl_uint deviceCount = 0;
    if (clGetDeviceIDs(platforms[index], CL_DEVICE_TYPE_ALL, 16, devices, &deviceCount) !=
        CL_SUCCESS)
      continue;
    for (cl_uint device = 0; device < deviceCount; ++device)
      measureDevice(platforms[index], devices[device], input);
  }
  return 0;
}
