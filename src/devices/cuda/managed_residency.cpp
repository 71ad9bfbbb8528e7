#include "devices/cuda/managed_residency.hpp"

#include <algorithm>
#include <iterator>

namespace kiln::cuda {
namespace {

uintptr_t addressOf(const std::byte *pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}

/// Removes [begin, end) from the disjoint ranges `ranges`, calling `removed` with each piece
/// it takes out.
template <typename Removed>
void takeOut(std::map<uintptr_t, uintptr_t> &ranges, uintptr_t begin, uintptr_t end,
             Removed removed) {
  auto range = ranges.upper_bound(begin);
  if (range != ranges.begin() && std::prev(range)->second > begin)
    --range;
  while (range != ranges.end() && range->first < end) {
    auto [first, last] = *range;
    range = ranges.erase(range);
    uintptr_t pieceBegin = std::max(first, begin), pieceEnd = std::min(last, end);
    removed(pieceBegin, pieceEnd);
    if (first < pieceBegin)
      ranges.emplace(first, pieceBegin);
    if (pieceEnd < last)
      ranges.emplace(pieceEnd, last); // at or past `end`: the loop stops before it
  }
}

} // namespace

ManagedResidency::ManagedResidency(const CudaLibrary &cuda, int deviceOrdinal, bool enabled)
    : cuda_(cuda), device_{CU_MEM_LOCATION_TYPE_DEVICE, deviceOrdinal},
      enabled_(enabled && cuda.memPrefetchAsync != nullptr) {}

void ManagedResidency::allocated(const std::byte *begin, size_t size) {
  if (!enabled_ || size == 0)
    return;
  std::lock_guard lock(mutex_);
  allocations_[addressOf(begin)] = addressOf(begin) + size;
  remember(addressOf(begin), addressOf(begin) + size);
}

void ManagedResidency::released(const std::byte *begin) {
  if (!enabled_)
    return;
  std::lock_guard lock(mutex_);
  auto allocation = allocations_.find(addressOf(begin));
  if (allocation == allocations_.end())
    return;
  takeOut(onHost_, allocation->first, allocation->second, [](uintptr_t, uintptr_t) {});
  allocations_.erase(allocation);
  anyOnHost_.store(!onHost_.empty(), std::memory_order_relaxed);
}

void ManagedResidency::moveToHost(const std::byte *begin, size_t size, CUstream stream) {
  if (!enabled_ || size == 0)
    return;
  std::lock_guard lock(mutex_);
  prefetch(addressOf(begin), addressOf(begin) + size, {CU_MEM_LOCATION_TYPE_HOST, 0}, stream);
  remember(addressOf(begin), addressOf(begin) + size);
}

void ManagedResidency::touchedByHost(const std::byte *begin, size_t size) {
  if (!enabled_ || size == 0)
    return;
  std::lock_guard lock(mutex_);
  remember(addressOf(begin), addressOf(begin) + size);
}

void ManagedResidency::moveToDevice(const std::byte *begin, size_t size, CUstream stream) {
  if (!anyOnHost_.load(std::memory_order_relaxed) || size == 0)
    return;
  std::lock_guard lock(mutex_);
  takeOut(onHost_, addressOf(begin), addressOf(begin) + size,
          [&](uintptr_t first, uintptr_t last) { prefetch(first, last, device_, stream); });
  anyOnHost_.store(!onHost_.empty(), std::memory_order_relaxed);
}

void ManagedResidency::remember(uintptr_t begin, uintptr_t end) {
  auto range = onHost_.upper_bound(begin);
  if (range != onHost_.begin() && std::prev(range)->second >= begin)
    --range;
  // Merges every range that overlaps or touches [begin, end).
  while (range != onHost_.end() && range->first <= end) {
    begin = std::min(begin, range->first);
    end = std::max(end, range->second);
    range = onHost_.erase(range);
  }
  onHost_.emplace(begin, end);
  anyOnHost_.store(true, std::memory_order_relaxed);
}

void ManagedResidency::prefetch(uintptr_t begin, uintptr_t end, CUmemLocation location,
                                CUstream stream) {
  // A hint: where it fails (memory that is not managed), the pages move on first touch as before.
  cuda_.memPrefetchAsync(static_cast<CUdeviceptr>(begin), end - begin, location, 0, stream);
}

} // namespace kiln::cuda
