#include "devices/cuda/stream_assignment.hpp"

#include <algorithm>

namespace kiln::cuda {

StreamAssignment::Choice StreamAssignment::assign(const void *orderKey) {
  std::lock_guard lock(mutex_);
  size_t stream = 0;
  if (orderKey == nullptr) {
    stream = leastBusy();
  } else {
    auto entry = ordered_.try_emplace(orderKey).first;
    if (entry->second.unfinished == 0)
      entry->second.stream = leastBusy();
    ++entry->second.unfinished;
    stream = entry->second.stream;
  }
  return {stream, ++unfinished_[stream]};
}

void StreamAssignment::finished(size_t stream, const void *orderKey) {
  std::lock_guard lock(mutex_);
  --unfinished_[stream];
  if (orderKey == nullptr)
    return;
  auto entry = ordered_.find(orderKey);
  // A key with nothing unfinished is free: its next command may go to any stream (and so may
  // a later queue at the same address). Its entry stays, so that a queue whose commands
  // finish one at a time does not allocate for each; free entries are dropped in bulk, once
  // the map has doubled since the last sweep (so many busy queues do not sweep on every
  // completion).
  if (entry == ordered_.end() || --entry->second.unfinished != 0 || ordered_.size() <= sweepAbove_)
    return;
  std::erase_if(ordered_, [](const auto &held) { return held.second.unfinished == 0; });
  sweepAbove_ = std::max(kKeptEntries, 2 * ordered_.size());
}

size_t StreamAssignment::leastBusy() const {
  return static_cast<size_t>(std::min_element(unfinished_.begin(), unfinished_.end()) -
                             unfinished_.begin());
}

} // namespace kiln::cuda
