// The CUDA driver's own kernel launch latency on this machine, without OpenCL: the floor under
// any OpenCL driver built on it (Kiln's GPU device, NVIDIA's OpenCL). It measures, on the host's
// CLOCK_MONOTONIC (the clock of OpenCL's profiling times on Linux):
//   - how long cuLaunchKernel and cuEventRecord take to return;
//   - how long after the host calls cuLaunchKernel the kernel's first instruction runs;
//   - how many small kernels (1024 threads adding one to an int each) a second it runs when they
//     are launched back to back and waited for once, with 8 bytes of parameters and with 176
//     (an OpenCL driver's launch carries its kernel's arguments and its launch's sizes and
//     offsets), without and with an event recorded behind each: the floor under an OpenCL
//     application streaming kernels on one in-order queue.
// The kernel reads the GPU's %globaltimer; that timer is tied to the host's clock by a two-way
// exchange through pinned memory (the GPU stamps when it announces itself and when it sees the
// host's reply; the round trip's middle is the offset, as NTP does).
//
//   gpu-launch-floor [iterations]
#include "devices/cuda/cuda_library.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The body of `bump` and `bumpWide`: each thread adds one to the int at its index of the array
// its parameter block starts with.
const char *kBumpBody = R"({
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [arguments];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.s32 %r3, %r2, 1;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

// `stamp` writes the time its first thread starts; `ping` announces itself with a time, waits
// for the host's flag, and stamps when it sees it. ptxSource() adds `bump` and `bumpWide` (176
// bytes of parameters), which add one to each int of an array.
const char *kPtx = R"(
.version 7.0
.target sm_50
.address_size 64
.visible .entry stamp(.param .u64 out) {
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u64 %rd3, %globaltimer;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  or.b32 %r1, %r1, %r2;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.volatile.global.u64 [%rd2], %rd3;
DONE:
  ret;
}
.visible .entry ping(.param .u64 flag, .param .u64 out) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<6>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u64 %rd3, %globaltimer;
  st.volatile.global.u64 [%rd2], %rd3;
  membar.sys;
  mov.u64 %rd4, 1;
  st.volatile.global.u64 [%rd2+8], %rd4;
WAIT:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra WAIT;
  mov.u64 %rd5, %globaltimer;
  st.volatile.global.u64 [%rd2+16], %rd5;
  ret;
}
)";

std::string ptxSource() {
  return std::string(kPtx) + ".visible .entry bump(.param .u64 arguments) " + kBumpBody +
         ".visible .entry bumpWide(.param .align 8 .b8 arguments[176]) " + kBumpBody;
}

void check(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "gpu-launch-floor: %s failed (%d)\n", what, static_cast<int>(result));
    std::exit(1);
  }
}

long long hostNanoseconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

void spinFor(long long nanoseconds) {
  for (long long start = hostNanoseconds(); hostNanoseconds() - start < nanoseconds;) {
  }
}

double percentile(std::vector<double> values, double fraction) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(fraction * (values.size() - 1))];
}

/// Pinned memory the GPU and the host share: the kernels' stamps and the host's flag.
struct Exchange {
  volatile unsigned long long *stamps = nullptr; // [0] announce, [1] ready, [2] seen, [8] start
  volatile unsigned *flag = nullptr;
  CUdeviceptr deviceStamps = 0, deviceFlag = 0;
};

/// GPU time minus host time, from the tightest of `tries` exchanges; `roundTrip` gets its
/// duration (the offset's uncertainty is at most half of it).
double clockOffset(const kiln::cuda::CudaLibrary &cuda, CUfunction ping, CUstream stream,
                   Exchange &exchange, int tries, double &roundTrip) {
  double offset = 0;
  roundTrip = 1e18;
  for (int i = 0; i < tries; ++i) {
    for (int slot = 0; slot < 3; ++slot)
      exchange.stamps[slot] = 0;
    *exchange.flag = 0;
    void *arguments[] = {&exchange.deviceFlag, &exchange.deviceStamps};
    check(cuda.launchKernel(ping, 1, 1, 1, 1, 1, 1, 0, stream, arguments, nullptr),
          "cuLaunchKernel");
    while (exchange.stamps[1] == 0) {
    }
    long long announced = hostNanoseconds();
    spinFor(20'000);
    long long replied = hostNanoseconds();
    *exchange.flag = 1;
    check(cuda.streamSynchronize(stream), "cuStreamSynchronize");
    // GPU minus host, early by the GPU-to-host delay and late by the host-to-GPU one.
    double early = double(exchange.stamps[0]) - double(announced);
    double late = double(exchange.stamps[2]) - double(replied);
    if (late - early < roundTrip) {
      roundTrip = late - early;
      offset = (early + late) / 2;
    }
  }
  return offset;
}

/// Kernels a second that `function` runs when `launches` of it go back to back on `stream` (its
/// one parameter at `parameter`), each followed by an event when `withEvents`, then one wait.
double backToBackRate(const kiln::cuda::CudaLibrary &cuda, CUfunction function, void *parameter,
                      CUstream stream, CUevent event, bool withEvents, int launches) {
  void *arguments[] = {parameter};
  long long start = hostNanoseconds();
  for (int i = 0; i < launches; ++i) {
    check(cuda.launchKernel(function, 1, 1, 1, 1024, 1, 1, 0, stream, arguments, nullptr),
          "cuLaunchKernel");
    if (withEvents)
      check(cuda.eventRecord(event, stream), "cuEventRecord");
  }
  check(cuda.streamSynchronize(stream), "cuStreamSynchronize");
  return launches / (double(hostNanoseconds() - start) / 1e9);
}

} // namespace

int main(int argc, char **argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  // Kiln's own table of the driver's functions, opened the way Kiln opens it.
  std::shared_ptr<const kiln::cuda::CudaLibrary> library = kiln::cuda::CudaLibrary::open();
  if (library == nullptr) {
    std::printf("gpu-launch-floor: no CUDA driver\n");
    return 0;
  }
  const kiln::cuda::CudaLibrary &cuda = *library;
  CUdevice device = 0;
  CUcontext context = nullptr;
  check(cuda.deviceGet(&device, 0), "cuDeviceGet");
  check(cuda.primaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuda.ctxPushCurrent(context), "cuCtxPushCurrent");
  CUmodule module = nullptr;
  CUfunction stamp = nullptr, ping = nullptr;
  std::string ptx = ptxSource();
  check(cuda.moduleLoadDataEx(&module, ptx.c_str(), 0, nullptr, nullptr), "cuModuleLoadDataEx");
  check(cuda.moduleGetFunction(&stamp, module, "stamp"), "cuModuleGetFunction");
  check(cuda.moduleGetFunction(&ping, module, "ping"), "cuModuleGetFunction");
  CUfunction bump = nullptr, bumpWide = nullptr;
  check(cuda.moduleGetFunction(&bump, module, "bump"), "cuModuleGetFunction");
  check(cuda.moduleGetFunction(&bumpWide, module, "bumpWide"), "cuModuleGetFunction");
  CUstream stream = nullptr;
  check(cuda.streamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  void *pinned = nullptr;
  check(cuda.memHostAlloc(&pinned, 4096, CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc");
  Exchange exchange;
  exchange.stamps = static_cast<volatile unsigned long long *>(pinned);
  exchange.flag = reinterpret_cast<volatile unsigned *>(exchange.stamps + 64);
  check(cuda.memHostGetDevicePointer(&exchange.deviceStamps, pinned, 0),
        "cuMemHostGetDevicePointer");
  exchange.deviceFlag = exchange.deviceStamps + 64 * sizeof(unsigned long long);

  double roundTrip = 0;
  double offset = clockOffset(cuda, ping, stream, exchange, 50, roundTrip);
  std::printf("clock exchange: round trip %.2f us (offset known within +-%.2f us)\n",
              roundTrip / 1e3, roundTrip / 2e3);

  CUevent event = nullptr;
  check(cuda.eventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  CUdeviceptr startStamp = exchange.deviceStamps + 8 * sizeof(unsigned long long);
  void *arguments[] = {&startStamp};
  for (bool withEvent : {false, true}) {
    std::vector<double> launchCall, eventCall, toStart;
    for (int i = 0; i < iterations; ++i) {
      long long before = hostNanoseconds();
      if (withEvent)
        check(cuda.eventRecord(event, stream), "cuEventRecord");
      long long recorded = hostNanoseconds();
      check(cuda.launchKernel(stamp, 1, 1, 1, 32, 1, 1, 0, stream, arguments, nullptr),
            "cuLaunchKernel");
      long long launched = hostNanoseconds();
      check(cuda.streamSynchronize(stream), "cuStreamSynchronize");
      if (i >= iterations / 10) { // the first launches warm up
        eventCall.push_back(double(recorded - before));
        launchCall.push_back(double(launched - recorded));
        toStart.push_back(double(exchange.stamps[8]) - offset - double(before));
      }
      spinFor(5'000); // an idle GPU between launches, as in an enqueue-then-finish loop
    }
    std::printf("%s: cuLaunchKernel returns after %.2f us", withEvent ? "event + launch" : "launch",
                percentile(launchCall, 0.5) / 1e3);
    if (withEvent)
      std::printf(", cuEventRecord after %.2f us", percentile(eventCall, 0.5) / 1e3);
    std::printf("; the kernel starts %.2f us after the first call (median; 10%% %.2f, 90%% %.2f)\n",
                percentile(toStart, 0.5) / 1e3, percentile(toStart, 0.1) / 1e3,
                percentile(toStart, 0.9) / 1e3);
  }

  CUdeviceptr counters = 0;
  check(cuda.memAllocManaged(&counters, 1024 * sizeof(int), CU_MEM_ATTACH_GLOBAL),
        "cuMemAllocManaged");
  unsigned char wideBlock[176] = {};
  std::memcpy(wideBlock, &counters, sizeof counters);
  constexpr int kBackToBack = 20000;
  for (bool withEvents : {false, true}) {
    backToBackRate(cuda, bump, &counters, stream, event, withEvents, 1000); // warm-up
    double narrow = backToBackRate(cuda, bump, &counters, stream, event, withEvents, kBackToBack);
    double wide = backToBackRate(cuda, bumpWide, wideBlock, stream, event, withEvents, kBackToBack);
    std::printf("%d kernels back to back%s: %.1f k/s with 8 bytes of parameters, %.1f k/s with "
                "176\n",
                kBackToBack, withEvents ? ", an event behind each" : "", narrow / 1e3, wide / 1e3);
  }
  return 0;
}
