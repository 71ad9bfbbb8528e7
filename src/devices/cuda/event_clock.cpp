#include "devices/cuda/event_clock.hpp"

#include "runtime/objects/event.hpp"

#include <cmath>

namespace kiln::cuda {
namespace {

// The GPU's timer and the host's clock run at rates some parts per million apart: over a second
// that puts device times tens of microseconds off (on an H100, START before SUBMIT). Renewing
// the anchor every 20 ms keeps the error near a microsecond, for about 30 us of the command
// thread's time.
constexpr cl_ulong kAnchorLifetimeNs = 20'000'000;

} // namespace

EventClock::~EventClock() {
  for (CUevent event : samples_)
    if (event != nullptr)
      cuda_.eventDestroy(event);
  // The stream belongs to the context, which lives as long as the process.
}

bool EventClock::renewAnchor() {
  anchor_ = nullptr;
  if (stream_ == nullptr && cuda_.streamCreate(&stream_, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    stream_ = nullptr;
    return false;
  }
  // The GPU stamps an event between the host's readings before and after, close to the later
  // one: a record reaches the GPU only after several microseconds, while a spinning
  // synchronization sees the stamp within about one. Take the later reading of the tightest of
  // a few tries (an estimate that errs late, never before the host's own submit time).
  cl_ulong tightest = ~cl_ulong{0};
  for (CUevent &sample : samples_) {
    if (sample == nullptr && cuda_.eventCreate(&sample, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
      sample = nullptr;
      return false;
    }
    cl_ulong before = monotonicNanoseconds();
    if (cuda_.eventRecord(sample, stream_) != CUDA_SUCCESS ||
        cuda_.eventSynchronize(sample) != CUDA_SUCCESS)
      return false;
    cl_ulong after = monotonicNanoseconds();
    if (after - before < tightest) {
      tightest = after - before;
      anchor_ = sample;
      anchorHostTime_ = after;
    }
  }
  return true;
}

cl_ulong EventClock::hostTime(CUevent event) {
  cl_ulong now = monotonicNanoseconds();
  if ((anchor_ == nullptr || now - anchorHostTime_ > kAnchorLifetimeNs) && !renewAnchor())
    return 0;
  float milliseconds = 0;
  if (cuda_.eventElapsedTime(&milliseconds, anchor_, event) != CUDA_SUCCESS)
    return 0;
  auto offset = static_cast<long long>(std::llround(double(milliseconds) * 1e6));
  return anchorHostTime_ + static_cast<cl_ulong>(offset); // wraps right for negative offsets
}

} // namespace kiln::cuda
