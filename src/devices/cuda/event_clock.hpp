// Reads the times of completed CUDA events on the host's profiling clock
// (monotonicNanoseconds). CUDA only measures the time between two events; an anchor event,
// recorded on an idle stream while the host watches for it on its own clock, ties the two
// clocks together.
// The anchor is renewed every 20 ms, so the clocks cannot drift apart by more than about a
// microsecond, and the single-precision milliseconds CUDA reports keep their resolution.
#pragma once

#include "devices/cuda/cuda_library.hpp"

#include <CL/cl.h>

#include <array>
#include <cstdint>
#include <optional>

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
  /// When the host saw an anchor sample stamped, and how long after it asked for the stamp.
  struct Sighting {
    cl_ulong hostTime;
    cl_ulong wait;
  };

  bool renewAnchor();
  bool prepare();
  /// Frees the word for good: samples are then synchronized.
  void dropWord();
  std::optional<Sighting> sightThroughWord(CUevent sample);
  std::optional<Sighting> sightBySynchronizing(CUevent sample);

  static constexpr int kSamples = 3;

  const CudaLibrary &cuda_;
  CUstream stream_ = nullptr; // only ever holds the anchor records
  std::array<CUevent, kSamples> samples_{};
  CUevent anchor_ = nullptr; // the tightest of samples_
  cl_ulong anchorHostTime_ = 0;
  // A host word the anchor stream writes right behind each sample (null without
  // cuStreamWriteValue32, or once a write failed), and the value it last wrote.
  std::uint32_t *word_ = nullptr;
  CUdeviceptr wordOnDevice_ = 0;
  std::uint32_t wordWrites_ = 0;
  bool wordTried_ = false;
};

} // namespace kiln::cuda
