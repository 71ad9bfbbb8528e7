#include "devices/cuda/pinned_ranges.hpp"

namespace kiln::cuda {

void PinnedRanges::add(const void *start, size_t size) {
  std::lock_guard lock(mutex_);
  sizes_[reinterpret_cast<uintptr_t>(start)] = size;
}

void PinnedRanges::remove(const void *start) {
  std::lock_guard lock(mutex_);
  sizes_.erase(reinterpret_cast<uintptr_t>(start));
}

bool PinnedRanges::contains(const void *address) const {
  auto at = reinterpret_cast<uintptr_t>(address);
  std::lock_guard lock(mutex_);
  auto after = sizes_.upper_bound(at);
  if (after == sizes_.begin())
    return false;
  auto range = std::prev(after);
  return at - range->first < range->second;
}

} // namespace kiln::cuda
