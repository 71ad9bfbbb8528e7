/* A C program that does not link the C math library builds and runs a kernel calling math
 * builtins. Kiln's generated code calls libm functions (expf, logf, erfcf, ...); it must find
 * them itself, whatever the application has loaded. Kiln's compiler library is loaded
 * RTLD_LOCAL, so its own libm is not among the process's global symbols.
 *
 * Written in C: a C++ program would have libm loaded through libstdc++. Exits 0 on success. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <link.h>
#include <stdio.h>
#include <string.h>

static int libmSeen(struct dl_phdr_info *info, size_t size, void *found) {
  (void)size;
  if (info->dlpi_name != NULL && strstr(info->dlpi_name, "/libm.so") != NULL)
    *(int *)found = 1;
  return 0;
}

static int libmLoaded(void) {
  int found = 0;
  dl_iterate_phdr(libmSeen, &found);
  return found;
}

static const char *kSource = "kernel void math(global const float *x, global float *out) {\n"
                             "  size_t i = get_global_id(0);\n"
                             "  out[i * 5 + 0] = exp(x[i]);\n"
                             "  out[i * 5 + 1] = log(x[i]);\n"
                             "  out[i * 5 + 2] = erfc(x[i]);\n"
                             "  out[i * 5 + 3] = tgamma(x[i]);\n"
                             "  out[i * 5 + 4] = (float)cbrt((double)x[i] * 8.0);\n"
                             "}\n";

enum { kInputs = 4, kResults = 5 };
static const float kX[kInputs] = {0.5f, 1.0f, 2.0f, 3.0f};
/* exp, log, erfc, tgamma, cbrt(8x), computed ahead of time (this program has no libm). */
static const double kExpected[kInputs][kResults] = {
    {1.6487212707, -0.6931471806, 0.4795001222, 1.7724538509, 1.5874010520},
    {2.7182818285, 0.0, 0.1572992071, 1.0, 2.0},
    {7.3890560989, 0.6931471806, 0.0046777350, 1.0, 2.5198420998},
    {20.0855369232, 1.0986122887, 0.0000220905, 2.0, 2.8844991406},
};

static double distance(double a, double b) {
  double d = a - b;
  return d < 0 ? -d : d;
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cl_int status_ = (call);                                                                       \
    if (status_ != CL_SUCCESS) {                                                                   \
      fprintf(stderr, "%s failed: %d\n", #call, status_);                                          \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(void) {
  if (libmLoaded()) {
    fprintf(stderr, "the test is void: libm is already loaded in this process\n");
    return 1;
  }
  cl_platform_id platform;
  cl_device_id device;
  cl_int error;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL));
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  CHECK(error);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &error);
  CHECK(error);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &error);
  CHECK(error);
  error = clBuildProgram(program, 1, &device, "", NULL, NULL);
  if (error != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "clBuildProgram failed: %d\n%s\n", error, log);
    return 1;
  }
  cl_kernel kernel = clCreateKernel(program, "math", &error);
  CHECK(error);
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof kX, (void *)kX,
                            &error);
  CHECK(error);
  cl_mem out =
      clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof(float) * kInputs * kResults, NULL, &error);
  CHECK(error);
  CHECK(clSetKernelArg(kernel, 0, sizeof x, &x));
  CHECK(clSetKernelArg(kernel, 1, sizeof out, &out));
  size_t global = kInputs;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  float results[kInputs][kResults];
  CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof results, results, 0, NULL, NULL));

  int failures = 0;
  for (int i = 0; i < kInputs; ++i)
    for (int j = 0; j < kResults; ++j) {
      double expected = kExpected[i][j];
      double tolerance = 1e-5 * (expected < 0 ? -expected : expected) + 1e-7;
      if (distance(results[i][j], expected) > tolerance) {
        fprintf(stderr, "function %d of %g: expected %.9g, got %.9g\n", j, kX[i], expected,
                results[i][j]);
        ++failures;
      }
    }
  clReleaseMemObject(out);
  clReleaseMemObject(x);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return failures == 0 ? 0 : 1;
}
