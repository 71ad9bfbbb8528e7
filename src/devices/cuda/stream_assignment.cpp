#include "devices/cuda/stream_assignment.hpp"

#include <algorithm>

namespace kiln::cuda {

size_t StreamAssignment::assign(const void *orderKey) {
  std::lock_guard lock(mutex_);
  size_t stream = 0;
  if (orderKey == nullptr) {
    stream = leastBusy();
  } else {
    auto [entry, added] = ordered_.try_emplace(orderKey);
    if (added)
      entry->second.stream = leastBusy();
    ++entry->second.unfinished;
    stream = entry->second.stream;
  }
  ++unfinished_[stream];
  return stream;
}

void StreamAssignment::finished(size_t stream, const void *orderKey) {
  std::lock_guard lock(mutex_);
  --unfinished_[stream];
  if (orderKey == nullptr)
    return;
  auto entry = ordered_.find(orderKey);
  // A key that has nothing unfinished is forgotten: its next command may go anywhere (and a
  // later queue at the same address starts afresh).
  if (entry != ordered_.end() && --entry->second.unfinished == 0)
    ordered_.erase(entry);
}

size_t StreamAssignment::leastBusy() const {
  return static_cast<size_t>(std::min_element(unfinished_.begin(), unfinished_.end()) -
                             unfinished_.begin());
}

} // namespace kiln::cuda
