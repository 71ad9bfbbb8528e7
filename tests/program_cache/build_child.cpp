// A process that builds the cache tests' program (the source ProgramCacheTest uses, with the
// comment given as argument), runs its kernel and checks the result: the tests start several at
// once on one cache folder. Exits 0 when all of it worked.
#include <CL/cl.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cache_test_source.hpp"

int main(int argc, char **argv) {
  std::string source = cachetest::source(argc > 1 ? argv[1] : "");
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS)
    return 2;
  cl_int error = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &error);
  const char *text = source.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &error);
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::fprintf(stderr, "build_child: the build failed\n");
    return 3;
  }
  cl_kernel kernel = clCreateKernel(program, "saxpy", &error);
  std::vector<float> x = cachetest::inputX(), y = cachetest::inputY();
  cl_mem xBuffer =
      clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, x.size() * sizeof(float), x.data(), &error);
  cl_mem yBuffer =
      clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, y.size() * sizeof(float), y.data(), &error);
  float a = cachetest::kScale;
  cl_int n = static_cast<cl_int>(x.size());
  clSetKernelArg(kernel, 0, sizeof yBuffer, &yBuffer);
  clSetKernelArg(kernel, 1, sizeof xBuffer, &xBuffer);
  clSetKernelArg(kernel, 2, sizeof a, &a);
  clSetKernelArg(kernel, 3, sizeof n, &n);
  size_t global = x.size();
  std::vector<float> result(y.size());
  if (clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr) !=
          CL_SUCCESS ||
      clEnqueueReadBuffer(queue, yBuffer, CL_TRUE, 0, result.size() * sizeof(float), result.data(),
                          0, nullptr, nullptr) != CL_SUCCESS)
    return 4;
  if (result != cachetest::expectedY()) {
    std::fprintf(stderr, "build_child: wrong results\n");
    return 5;
  }
  clReleaseMemObject(xBuffer);
  clReleaseMemObject(yBuffer);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
