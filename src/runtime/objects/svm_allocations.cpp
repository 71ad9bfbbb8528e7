#include "runtime/objects/svm_allocations.hpp"

namespace kiln {
namespace {

uintptr_t addressOf(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}

} // namespace

void SvmAllocations::add(Ref<MemObject> allocation) {
  std::lock_guard lock(mutex_);
  byAddress_.emplace(addressOf(allocation->data()), std::move(allocation));
}

bool SvmAllocations::remove(const void *base) {
  Ref<MemObject> removed; // released after the lock
  std::lock_guard lock(mutex_);
  auto found = byAddress_.find(addressOf(base));
  if (found == byAddress_.end())
    return false;
  removed = std::move(found->second);
  byAddress_.erase(found);
  return true;
}

void SvmAllocations::clear() {
  std::map<uintptr_t, Ref<MemObject>> removed;
  std::lock_guard lock(mutex_);
  removed.swap(byAddress_);
}

SvmLocation SvmAllocations::find(const void *pointer) const {
  std::lock_guard lock(mutex_);
  auto after = byAddress_.upper_bound(addressOf(pointer));
  if (after == byAddress_.begin())
    return {};
  const auto &[base, allocation] = *std::prev(after);
  size_t offset = addressOf(pointer) - base;
  if (offset >= allocation->size())
    return {};
  return {allocation, offset};
}

} // namespace kiln
