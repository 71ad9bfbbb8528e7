// CUDA events for the commands of one GPU, reused: creating one costs about a microsecond, and
// the command thread records one behind every batch of commands (a profiled command records
// two of its own).
#pragma once

#include "devices/cuda/cuda_library.hpp"

#include <mutex>
#include <vector>

namespace kiln::cuda {

class EventPool {
public:
  /// The CUDA context must be current whenever the pool is used.
  explicit EventPool(const CudaLibrary &cuda) : cuda_(cuda) {}
  ~EventPool();
  EventPool(const EventPool &) = delete;
  EventPool &operator=(const EventPool &) = delete;

  /// An event, timing ones only when `timed` (untimed events are cheaper to record); null when
  /// CUDA cannot make one.
  CUevent acquire(bool timed);
  void release(CUevent event, bool timed);

private:
  const CudaLibrary &cuda_;
  std::mutex mutex_;
  std::vector<CUevent> free_[2]; // untimed, timed
};

} // namespace kiln::cuda
