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
#include "suite/cl_session.hpp"
#include "suite/workloads/transfer_data.hpp"

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

/// The sequence on an OpenCL device: the suite's update kernel over one buffer.
class OpenClSequence {
public:
  explicit OpenClSequence(const bench::ClDevice &device)
      : session_(device), kernel_(session_.kernel(bench::kInPlaceUpdateSource, "update")),
        buffer_(session_.buffer(kBytes)) {
    bench::setArgs(kernel_.get(), buffer_);
  }

  PhaseTimes run(HostData &host) {
    PhaseTimes times{};
    size_t global = kWords;
    cl_mem buffer = buffer_.get();
    Clock::time_point start = Clock::now();
    void *input = session_.map(buffer, kBytes, CL_MAP_WRITE_INVALIDATE_REGION);
    times[MapWrite] = millisecondsSince(start);
    std::memcpy(input, host.source.data(), kBytes);
    times[CopyIn] = millisecondsSince(start);
    session_.unmap(buffer, input);
    session_.launch(kernel_.get(), 1, &global);
    session_.finish();
    times[Kernel] = millisecondsSince(start);
    void *output = session_.map(buffer, kBytes, CL_MAP_READ);
    times[MapRead] = millisecondsSince(start);
    std::memcpy(host.received.data(), output, kBytes);
    times[CopyOut] = millisecondsSince(start);
    session_.unmap(buffer, output);
    session_.finish();
    times[Unmap] = millisecondsSince(start);
    return times;
  }

private:
  bench::ClSession session_;
  bench::ClKernel kernel_;
  bench::ClBuffer buffer_;
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
  for (const bench::ClDevice &device : bench::installedDevices(CL_DEVICE_TYPE_CPU)) {
    try {
      auto sequence = std::make_unique<OpenClSequence>(device);
      OpenClSequence &used = *sequence;
      sequences.push_back(std::move(sequence));
      implementations.push_back(
          {device.platformName, [&used](HostData &h) { return used.run(h); }});
    } catch (const bench::ClFailure &failure) {
      std::fprintf(stderr, "kiln-mapped-phases: %s: %s\n", device.platformName.c_str(),
                   failure.what());
    }
  }

  const Implementation *running = nullptr;
  try {
    // One unmeasured run each (first touches, compilation on first launch) and a check of it.
    for (Implementation &implementation : implementations) {
      running = &implementation;
      implementation.run(host);
      if (!matchesReference(host)) {
        std::fprintf(stderr, "kiln-mapped-phases: %s: wrong result\n", implementation.name.c_str());
        return 1;
      }
    }
    for (int round = 0; round < runs; ++round)
      for (size_t turn = 0; turn < implementations.size(); ++turn) {
        Implementation &implementation = implementations[(round + turn) % implementations.size()];
        running = &implementation;
        implementation.times.push_back(implementation.run(host));
      }
  } catch (const bench::ClFailure &failure) {
    // A map, unmap or launch refused mid-run: no table is better than one missing a phase.
    std::fprintf(stderr, "kiln-mapped-phases: %s: %s\n", running->name.c_str(), failure.what());
    return 1;
  }
  printTable(implementations);
  return 0;
}
