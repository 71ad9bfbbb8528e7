#include "devices/cuda/event_clock.hpp"

#include "runtime/objects/event.hpp"

#include <atomic>
#include <cmath>

namespace kiln::cuda {
namespace {

// The GPU's timer and the host's clock run at rates some parts per million apart: over a second
// that puts device times tens of microseconds off (on an H100, START before SUBMIT). Renewing
// the anchor every 20 ms keeps the error near a microsecond, for about 30 us of the command
// thread's time.
constexpr cl_ulong kAnchorLifetimeNs = 20'000'000;

// A word not seen written after this long is given up on: the sample is not used.
constexpr cl_ulong kWordWaitLimitNs = 1'000'000;

} // namespace

EventClock::~EventClock() {
  for (CUevent event : samples_)
    if (event != nullptr)
      cuda_.eventDestroy(event);
  if (word_ != nullptr)
    cuda_.memFreeHost(word_);
  // The stream belongs to the context, which lives as long as the process.
}

bool EventClock::prepare() {
  if (stream_ == nullptr && cuda_.streamCreate(&stream_, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    stream_ = nullptr;
    return false;
  }
  for (CUevent &sample : samples_)
    if (sample == nullptr && cuda_.eventCreate(&sample, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
      sample = nullptr;
      return false;
    }
  if (!wordTried_ && cuda_.streamWriteValue32 != nullptr) {
    wordTried_ = true;
    void *word = nullptr;
    if (cuda_.memHostAlloc(&word, sizeof(std::uint32_t),
                           CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
      return true;
    word_ = static_cast<std::uint32_t *>(word);
    *word_ = wordWrites_;
    if (cuda_.memHostGetDevicePointer(&wordOnDevice_, word, 0) != CUDA_SUCCESS)
      dropWord();
  }
  return true;
}

void EventClock::dropWord() {
  cuda_.memFreeHost(word_);
  word_ = nullptr;
}

std::optional<EventClock::Sighting> EventClock::sightThroughWord(CUevent sample) {
  // The GPU writes the word after stamping the sample, and the host sees the write within a
  // PCIe write's latency (under a microsecond); a synchronization sees the stamp itself later.
  std::uint32_t value = wordWrites_ + 1;
  cl_ulong asked = monotonicNanoseconds();
  if (cuda_.eventRecord(sample, stream_) != CUDA_SUCCESS)
    return std::nullopt;
  if (cuda_.streamWriteValue32(stream_, wordOnDevice_, value, CU_STREAM_WRITE_VALUE_DEFAULT) !=
      CUDA_SUCCESS) {
    dropWord(); // this driver cannot write host memory from a stream: synchronize instead
    return sightBySynchronizing(sample);
  }
  wordWrites_ = value;
  std::atomic_ref<std::uint32_t> word(*word_);
  for (;;) {
    cl_ulong now = monotonicNanoseconds();
    if (word.load(std::memory_order_acquire) == value)
      return Sighting{now, now - asked};
    if (now - asked > kWordWaitLimitNs) {
      cuda_.streamSynchronize(stream_); // the word is written before it is ever freed
      return std::nullopt;
    }
  }
}

std::optional<EventClock::Sighting> EventClock::sightBySynchronizing(CUevent sample) {
  cl_ulong asked = monotonicNanoseconds();
  if (cuda_.eventRecord(sample, stream_) != CUDA_SUCCESS ||
      cuda_.eventSynchronize(sample) != CUDA_SUCCESS)
    return std::nullopt;
  cl_ulong seen = monotonicNanoseconds();
  return Sighting{seen, seen - asked};
}

bool EventClock::renewAnchor() {
  anchor_ = nullptr;
  if (!prepare())
    return false;
  // The GPU stamps a sample between the host's request and its sighting, most of that time
  // before the stamp (a record reaches the GPU only after several microseconds). Taking the
  // sighting errs late by how long the host took to see the stamp, never early: device times
  // never come before the host's own submit time. The quickest of a few samples errs least.
  cl_ulong quickest = ~cl_ulong{0};
  auto sample = [&](bool throughWord) {
    for (CUevent event : samples_) {
      // (A write that fails takes the word away for good, in sightThroughWord.)
      std::optional<Sighting> sighting =
          throughWord && word_ != nullptr ? sightThroughWord(event) : sightBySynchronizing(event);
      if (sighting && sighting->wait < quickest) {
        quickest = sighting->wait;
        anchor_ = event;
        anchorHostTime_ = sighting->hostTime;
      }
    }
  };
  if (word_ != nullptr)
    sample(true);
  // Without a word, or when none was seen in time (a GPU too busy to write it soon).
  if (anchor_ == nullptr)
    sample(false);
  return anchor_ != nullptr;
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
