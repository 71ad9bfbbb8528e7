// Where the time of the suite's "mapped update" goes, phase by phase, on every platform the ICD
// loader finds and in a native program that does the same with no OpenCL at all:
//   map W     clEnqueueMapBuffer(CL_MAP_WRITE_INVALIDATE_REGION), blocking
//   copy in   the application's memcpy of 64 MiB into the map
//   kernel    clEnqueueUnmapMemObject, then the in-place update kernel, then clFinish
//   map R     clEnqueueMapBuffer(CL_MAP_READ), blocking
//   copy out  the application's memcpy of 64 MiB out of the map
//   unmap     clEnqueueUnmapMemObject and clFinish
// The native program copies into a buffer advised for huge pages (as Kiln's buffers are),
// updates it with OpenMP on every core and copies it out: the limit for that sequence on this
// machine. Both copies are the application's and run on one core; they are most of the time.
// The implementations take turns run by run (the first moving each round), each copying from
// and into the same host vectors; the table shows medians in milliseconds.
//
//   mkdir -p /tmp/icd-both && cp build/icd/kiln.icd /etc/OpenCL/vendors/pocl.icd /tmp/icd-both
//   OCL_ICD_VENDORS=/tmp/icd-both build/bench/kiln-mapped-phases [runs]
#define CL_TARGET_OPENCL_VERSION 300
#include "suite/workloads/transfer_data.hpp"

#include <CL/cl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <vector>

namespace {

using bench::updatedWord;

// The suite's size and input (transfer_data.hpp): 64 MiB of hashed words.
const size_t kWords = bench::transferWordCount(bench::Scale::Full);
const size_t kBytes = kWords * sizeof(uint32_t);

enum Phase { MapWrite, CopyIn, Kernel, MapRead, CopyOut, Unmap, kPhases };
constexpr std::array<const char *, kPhases> kPhaseNames = {"map W", "copy in",  "kernel",
                                                           "map R", "copy out", "unmap"};

using Clock = std::chrono::steady_clock;
using PhaseTimes = std::array<double, kPhases>;

/// The host side of the sequence, shared by every implementation.
struct HostData {
  std::vector<uint32_t> source, received;
};

/// One implementation of the sequence: runs it once and returns each phase's milliseconds.
struct Implementation {
  std::string name;
  std::function<PhaseTimes(HostData &)> run;
  std::vector<PhaseTimes> times;
};

double millisecondsSince(Clock::time_point &start) {
  Clock::time_point now = Clock::now();
  double ms = std::chrono::duration<double, std::milli>(now - start).count();
  start = now;
  return ms;
}

/// An OpenCL device's context, queue, kernel and buffer, released at the end.
struct OpenClSequence {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem buffer = nullptr;

  OpenClSequence(const OpenClSequence &) = delete;
  OpenClSequence &operator=(const OpenClSequence &) = delete;
  explicit OpenClSequence(cl_device_id device) {
    cl_int error = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
    queue = clCreateCommandQueueWithProperties(context, device, nullptr, &error);
    const char *source = bench::kInPlaceUpdateSource;
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &error);
    if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS)
      return;
    kernel = clCreateKernel(program, "update", &error);
    buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, kBytes, nullptr, &error);
    if (kernel != nullptr && buffer != nullptr)
      clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer);
  }
  ~OpenClSequence() {
    if (buffer)
      clReleaseMemObject(buffer);
    if (kernel)
      clReleaseKernel(kernel);
    if (program)
      clReleaseProgram(program);
    if (queue)
      clReleaseCommandQueue(queue);
    if (context)
      clReleaseContext(context);
  }
  bool ready() const { return kernel != nullptr && buffer != nullptr && queue != nullptr; }

  void *map(cl_map_flags flags) {
    cl_int error = CL_SUCCESS;
    void *mapped =
        clEnqueueMapBuffer(queue, buffer, CL_TRUE, flags, 0, kBytes, 0, nullptr, nullptr, &error);
    if (error != CL_SUCCESS || mapped == nullptr) {
      std::fprintf(stderr, "kiln-mapped-phases: clEnqueueMapBuffer failed (%d)\n", error);
      std::exit(1);
    }
    return mapped;
  }

  PhaseTimes run(HostData &host) {
    PhaseTimes times{};
    size_t global = kWords;
    Clock::time_point start = Clock::now();
    void *input = map(CL_MAP_WRITE_INVALIDATE_REGION);
    times[MapWrite] = millisecondsSince(start);
    std::memcpy(input, host.source.data(), kBytes);
    times[CopyIn] = millisecondsSince(start);
    clEnqueueUnmapMemObject(queue, buffer, input, 0, nullptr, nullptr);
    clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    clFinish(queue);
    times[Kernel] = millisecondsSince(start);
    void *output = map(CL_MAP_READ);
    times[MapRead] = millisecondsSince(start);
    std::memcpy(host.received.data(), output, kBytes);
    times[CopyOut] = millisecondsSince(start);
    clEnqueueUnmapMemObject(queue, buffer, output, 0, nullptr, nullptr);
    clFinish(queue);
    times[Unmap] = millisecondsSince(start);
    return times;
  }
};

/// The same sequence without OpenCL: a huge-page-advised buffer, the update with OpenMP.
class NativeSequence {
public:
  NativeSequence() {
    constexpr size_t kHugePage = size_t{2} << 20;
    buffer_.reset(static_cast<uint32_t *>(std::aligned_alloc(kHugePage, kBytes)));
    madvise(buffer_.get(), kBytes, MADV_HUGEPAGE);
    std::memset(buffer_.get(), 0, kBytes);
  }
  PhaseTimes run(HostData &host) {
    PhaseTimes times{};
    uint32_t *data = buffer_.get();
    Clock::time_point start = Clock::now();
    std::memcpy(data, host.source.data(), kBytes);
    times[CopyIn] = millisecondsSince(start);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < kWords; ++i)
      data[i] = updatedWord(data[i], i);
    times[Kernel] = millisecondsSince(start);
    std::memcpy(host.received.data(), data, kBytes);
    times[CopyOut] = millisecondsSince(start);
    return times;
  }

private:
  struct Free {
    void operator()(uint32_t *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<uint32_t, Free> buffer_;
};

bool matchesReference(const HostData &host) {
  for (size_t i = 0; i < kWords; ++i)
    if (host.received[i] != updatedWord(host.source[i], i))
      return false;
  return true;
}

std::string platformName(cl_platform_id platform) {
  char name[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return name;
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

void printTable(const std::vector<Implementation> &implementations) {
  std::printf("%-30s", "implementation (ms, medians)");
  for (const char *phase : kPhaseNames)
    std::printf("%10s", phase);
  std::printf("%10s\n", "total");
  for (const Implementation &implementation : implementations) {
    std::printf("%-30s", implementation.name.substr(0, 29).c_str());
    double total = 0;
    for (int phase = 0; phase < kPhases; ++phase) {
      std::vector<double> values;
      for (const PhaseTimes &times : implementation.times)
        values.push_back(times[phase]);
      double value = median(values);
      total += value;
      std::printf("%10.3f", value);
    }
    // The sum of the medians: close to the median of the sums, and it adds up in the table.
    std::printf("%10.3f\n", total);
  }
}

} // namespace

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 60;
  HostData host{bench::transferInput(bench::Scale::Full), std::vector<uint32_t>(kWords)};

  std::vector<std::unique_ptr<OpenClSequence>> sequences;
  NativeSequence native;
  std::vector<Implementation> implementations;
  implementations.push_back({"native (same sequence)", [&](HostData &h) { return native.run(h); }});
  cl_uint platformCount = 0;
  clGetPlatformIDs(0, nullptr, &platformCount);
  std::vector<cl_platform_id> platforms(platformCount);
  if (platformCount != 0)
    clGetPlatformIDs(platformCount, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS)
      continue;
    auto sequence = std::make_unique<OpenClSequence>(device);
    if (!sequence->ready()) {
      std::fprintf(stderr, "kiln-mapped-phases: %s: cannot set up the kernel\n",
                   platformName(platform).c_str());
      continue;
    }
    OpenClSequence &used = *sequence;
    sequences.push_back(std::move(sequence));
    implementations.push_back(
        {platformName(platform), [&used](HostData &h) { return used.run(h); }});
  }

  // One unmeasured run each (first touches, compilation on first launch) and a check of it.
  for (Implementation &implementation : implementations) {
    implementation.run(host);
    if (!matchesReference(host)) {
      std::fprintf(stderr, "kiln-mapped-phases: %s: wrong result\n", implementation.name.c_str());
      return 1;
    }
  }
  for (int round = 0; round < runs; ++round)
    for (size_t turn = 0; turn < implementations.size(); ++turn) {
      Implementation &implementation = implementations[(round + turn) % implementations.size()];
      implementation.times.push_back(implementation.run(host));
    }
  printTable(implementations);
  return 0;
}
