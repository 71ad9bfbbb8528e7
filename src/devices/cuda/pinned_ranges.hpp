// The pinned host memory a GPU driver allocated, by address: copies between it and the
// application's (pageable) memory are plain host copies, several times faster than CUDA's, which
// would stage them through its own buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace kiln::cuda {

class PinnedRanges {
public:
  void add(const void *start, size_t size);
  void remove(const void *start);
  /// Whether `address` lies in one of the ranges.
  bool contains(const void *address) const;

private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, size_t> sizes_; // by start address
};

} // namespace kiln::cuda
