// Reads the times of completed CUDA events on the host's profiling clock
// (monotonicNanoseconds). CUDA only measures the time between two events; an anchor event,
// recorded on an idle stream and waited for while the host reads its own clock, ties the two
// clocks together.
// The anchor is renewed every 20 ms, so the clocks cannot drift apart by more than about a
// microsecond, and the single-precision milliseconds CUDA reports keep their resolution.
#pragma once

#include "devices/cuda/cuda_library.hpp"

#include <CL/cl.h>

#include <array>

namespace kiln::cuda {

class EventClock {
public:
  /// Used from one thread at a time, with the GPU's context current.
  explicit EventClock(const CudaLibrary &cuda) : cuda_(cuda) {}
  ~EventClock();
  EventClock(const EventClock &) = delete;
  EventClock &operator=(const EventClock &) = delete;

  /// The host time of `event` (a completed timing event); 0 when it cannot be read.
  cl_ulong hostTime(CUevent event);

private:
  bool renewAnchor();

  static constexpr int kSamples = 3;

  const CudaLibrary &cuda_;
  CUstream stream_ = nullptr; // only ever holds the anchor records
  std::array<CUevent, kSamples> samples_{};
  CUevent anchor_ = nullptr; // the tightest of samples_
  cl_ulong anchorHostTime_ = 0;
};

} // namespace kiln::cuda
