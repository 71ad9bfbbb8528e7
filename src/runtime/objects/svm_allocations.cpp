#include "runtime/objects/svm_allocations.hpp"

namespace kiln {
namespace {

uintptr_t addressOf(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}

} // namespace

void SvmAllocations::add(Ref<MemObject> allocation, SharedMemoryKind kind, Device *device,
                         cl_bitfield usmFlags) {
  std::lock_guard lock(mutex_);
  uintptr_t base = addressOf(allocation->data());
  byAddress_.emplace(base, Entry{std::move(allocation), kind, device, usmFlags});
}

bool SvmAllocations::remove(const void *base) {
  Ref<MemObject> removed; // released after the lock
  std::lock_guard lock(mutex_);
  auto found = byAddress_.find(addressOf(base));
  if (found == byAddress_.end())
    return false;
  removed = std::move(found->second.allocation);
  byAddress_.erase(found);
  return true;
}

void SvmAllocations::clear() {
  std::map<uintptr_t, Entry> removed;
  std::lock_guard lock(mutex_);
  removed.swap(byAddress_);
}

SvmLocation SvmAllocations::find(const void *pointer) const {
  std::lock_guard lock(mutex_);
  auto after = byAddress_.upper_bound(addressOf(pointer));
  if (after == byAddress_.begin())
    return {};
  const auto &[base, entry] = *std::prev(after);
  size_t offset = addressOf(pointer) - base;
  if (offset >= entry.allocation->size())
    return {};
  return {entry.allocation, offset, entry.kind, entry.device, entry.usmFlags};
}

} // namespace kiln
