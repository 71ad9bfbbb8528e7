// What loading an OpenCL implementation costs an application that never uses it: the ICD
// loader opens every installed vendor library on the first clGetPlatformIDs, so this is paid by
// every OpenCL program on a machine where Kiln is installed.
//
// Runs itself as a child process many times; each child times its first clGetPlatformIDs and
// clGetDeviceIDs (library load included) and the parent reports the median. Compare vendors
// side by side by pointing OCL_ICD_VENDORS at one .icd file at a time:
//
//   OCL_ICD_VENDORS=build/icd build/bench/kiln-startup
//   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd build/bench/kiln-startup
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

/// The child: prints the microseconds its first platform and device queries took.
int measureOnce() {
  auto start = std::chrono::steady_clock::now();
  cl_uint platformCount = 0;
  cl_platform_id platforms[16];
  if (clGetPlatformIDs(16, platforms, &platformCount) != CL_SUCCESS || platformCount == 0)
    return 1;
  cl_uint deviceCount = 0;
  for (cl_uint index = 0; index < std::min<cl_uint>(platformCount, 16); ++index) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platforms[index], CL_DEVICE_TYPE_ALL, 0, nullptr, &count) == CL_SUCCESS)
      deviceCount += count;
  }
  auto elapsed = std::chrono::steady_clock::now() - start;
  std::printf("%lld %u\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()),
              deviceCount);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--child") == 0)
    return measureOnce();
  int runs = argc > 1 ? std::atoi(argv[1]) : 30;
  std::vector<long long> times;
  unsigned devices = 0;
  for (int run = 0; run < runs; ++run) {
    std::string command = std::string(argv[0]) + " --child";
    FILE *child = popen(command.c_str(), "r");
    long long microseconds = 0;
    if (child == nullptr || std::fscanf(child, "%lld %u", &microseconds, &devices) != 2) {
      std::fprintf(stderr, "startup: the child process failed\n");
      return 1;
    }
    pclose(child);
    times.push_back(microseconds);
  }
  std::sort(times.begin(), times.end());
  std::printf("first clGetPlatformIDs + clGetDeviceIDs (%u devices), %d processes: "
              "median %.2f ms, min %.2f ms, max %.2f ms\n",
              devices, runs, times[times.size() / 2] / 1000.0, times.front() / 1000.0,
              times.back() / 1000.0);
  return 0;
}
