// Where a profiled kernel launch's time goes, on any OpenCL implementation: the medians of
// SUBMIT - QUEUED, START - QUEUED, END - START and END - QUEUED over many launches, each waited
// for (clFinish) before the next, and how long the enqueue call and the wait took on the host.
// clpeak's "kernel launch latency" is the mean of START - QUEUED for its first kernel
// (global_bandwidth_v1_local_offset: 16 floats a work-item, max work-group size times compute
// units work-items), which this runs first, then an empty kernel of the same size.
//
//   OCL_ICD_FILENAMES=<an implementation's library> kiln-profiled-launch [launches] [cpu]
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
  #define FETCH_2(sum, id, A, jumpBy) sum += A[id]; id += jumpBy; sum += A[id]; id += jumpBy;
  #define FETCH_4(sum, id, A, jumpBy) FETCH_2(sum, id, A, jumpBy); FETCH_2(sum, id, A, jumpBy);
  #define FETCH_PER_WI 16
  kernel void global_bandwidth_v1_local_offset(global float *A, global float *B) {
    int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0);
    float sum = 0;
    for (int i = 0; i < 4; i++) {
      FETCH_4(sum, id, A, get_local_size(0));
    }
    B[get_global_id(0)] = sum;
  }
  kernel void empty(global float *A, global float *B) {})";

void check(cl_int error, const char *what) {
  if (error != CL_SUCCESS) {
    std::fprintf(stderr, "kiln-profiled-launch: %s failed (%d)\n", what, error);
    std::exit(1);
  }
}

double hostNanoseconds() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double medianMicroseconds(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2] / 1e3;
}

/// The intervals of one launch, in nanoseconds.
struct Intervals {
  std::array<std::vector<double>, 6> values;
  enum { SubmitQueued, StartQueued, EndStart, EndQueued, EnqueueCall, EnqueueAndFinish };
};

Intervals timeLaunches(cl_command_queue queue, cl_kernel kernel, size_t global, size_t local,
                       int launches) {
  for (int warmUp = 0; warmUp < 3; ++warmUp)
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  check(clFinish(queue), "clFinish");
  Intervals intervals;
  for (int launch = 0; launch < launches; ++launch) {
    cl_event event = nullptr;
    double before = hostNanoseconds();
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &event),
          "clEnqueueNDRangeKernel");
    double enqueued = hostNanoseconds();
    check(clFinish(queue), "clFinish");
    double finished = hostNanoseconds();
    std::array<cl_ulong, 4> times{}; // QUEUED, SUBMIT, START, END
    for (cl_uint point = 0; point < 4; ++point)
      check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_QUEUED + point, sizeof(cl_ulong),
                                    &times[point], nullptr),
            "clGetEventProfilingInfo");
    clReleaseEvent(event);
    auto &values = intervals.values;
    values[Intervals::SubmitQueued].push_back(double(times[1] - times[0]));
    values[Intervals::StartQueued].push_back(double(times[2] - times[0]));
    values[Intervals::EndStart].push_back(double(times[3] - times[2]));
    values[Intervals::EndQueued].push_back(double(times[3] - times[0]));
    values[Intervals::EnqueueCall].push_back(enqueued - before);
    values[Intervals::EnqueueAndFinish].push_back(finished - before);
  }
  return intervals;
}

} // namespace

int main(int argc, char **argv) {
  int launches = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  bool onCpu = argc > 2 && std::strcmp(argv[2], "cpu") == 0;
  cl_platform_id platform = nullptr;
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  check(clGetDeviceIDs(platform, onCpu ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU, 1, &device,
                       nullptr),
        "clGetDeviceIDs");
  char name[256] = {};
  size_t maxGroup = 0;
  cl_uint units = 0;
  check(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name, nullptr), "name");
  check(
      clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(maxGroup), &maxGroup, nullptr),
      "max work-group size");
  check(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, nullptr),
        "compute units");
  size_t local = std::min<size_t>(maxGroup, 1024), global = local * units;
  cl_int error = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
  check(error, "clCreateContext");
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, properties, &error);
  check(error, "clCreateCommandQueueWithProperties");
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &error);
  check(error, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_mem input =
      clCreateBuffer(context, CL_MEM_READ_ONLY, global * 16 * sizeof(float), nullptr, &error);
  check(error, "clCreateBuffer");
  cl_mem output =
      clCreateBuffer(context, CL_MEM_WRITE_ONLY, global * sizeof(float), nullptr, &error);
  check(error, "clCreateBuffer");
  std::printf("%s: %zu work-items in groups of %zu, %d launches each; medians in us\n", name,
              global, local, launches);
  std::printf("%-34s %8s %8s %8s %8s %8s %8s\n", "kernel", "SUB-QUE", "STA-QUE", "END-STA",
              "END-QUE", "enqueue", "+finish");
  for (const char *kernelName : {"global_bandwidth_v1_local_offset", "empty"}) {
    cl_kernel kernel = clCreateKernel(program, kernelName, &error);
    check(error, "clCreateKernel");
    check(clSetKernelArg(kernel, 0, sizeof(cl_mem), &input), "clSetKernelArg");
    check(clSetKernelArg(kernel, 1, sizeof(cl_mem), &output), "clSetKernelArg");
    Intervals intervals = timeLaunches(queue, kernel, global, local, launches);
    std::printf("%-34s", kernelName);
    for (const std::vector<double> &values : intervals.values)
      std::printf(" %8.2f", medianMicroseconds(values));
    std::printf("\n");
    clReleaseKernel(kernel);
  }
  clReleaseMemObject(output);
  clReleaseMemObject(input);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
