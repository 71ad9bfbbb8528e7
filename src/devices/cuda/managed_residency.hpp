// Where the pages of a GPU's managed memory are. Managed memory moves to whichever processor
// touches it, one page fault at a time: a few GB/s, where one transfer runs at the bus's full
// speed. So the driver moves memory objects itself, in bulk, around the host's accesses: to the
// host before a map hands it bytes, and back to the GPU before the next kernel that uses them.
#pragma once

#include "devices/cuda/cuda_library.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace kiln::cuda {

class ManagedResidency {
public:
  /// Moves nothing when `enabled` is false (a GPU without concurrent managed access, or a driver
  /// without cuMemPrefetchAsync_v2), where the driver migrates managed memory at each launch.
  ManagedResidency(const CudaLibrary &cuda, int deviceOrdinal, bool enabled);

  /// A new allocation: its first user may be the host (a buffer made from the application's
  /// bytes), so the GPU's first use of it moves it over.
  void allocated(const std::byte *begin, size_t size);
  /// An allocation about to be freed: forgets its pages.
  void released(const std::byte *begin);

  /// Puts the move of [begin, begin + size) to the host on `stream`; the caller waits for the
  /// stream before the host touches the bytes. Remembers that the GPU's next use must bring
  /// them back.
  void moveToHost(const std::byte *begin, size_t size, CUstream stream);
  /// Remembers that the host touched [begin, begin + size) without a move before.
  void touchedByHost(const std::byte *begin, size_t size);
  /// Puts the move to the GPU of whatever part of [begin, begin + size) the host may hold on
  /// `stream`, ahead of the command that will use it there. Costs one atomic load when the
  /// host holds nothing.
  void moveToDevice(const std::byte *begin, size_t size, CUstream stream);

private:
  void remember(uintptr_t begin, uintptr_t end);
  void prefetch(uintptr_t begin, uintptr_t end, CUmemLocation location, CUstream stream);

  const CudaLibrary &cuda_;
  CUmemLocation device_;
  bool enabled_;
  std::mutex mutex_;
  /// The ranges the host may hold, disjoint and not adjacent: begin -> end.
  std::map<uintptr_t, uintptr_t> onHost_;
  /// Each live allocation: begin -> end.
  std::map<uintptr_t, uintptr_t> allocations_;
  std::atomic<bool> anyOnHost_{false};
};

} // namespace kiln::cuda
