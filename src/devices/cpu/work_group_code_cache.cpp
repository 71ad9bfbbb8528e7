#include "devices/cpu/work_group_code_cache.hpp"

namespace kiln::cpu {

const WorkGroupCode *WorkGroupCodeCache::findRecent(const WorkGroupShape &shape) const {
  for (const std::atomic<const Entry *> &slot : recent_) {
    const Entry *entry = slot.load(std::memory_order_acquire);
    if (entry != nullptr && entry->shape == shape)
      return &entry->code;
  }
  return nullptr;
}

const WorkGroupCode *WorkGroupCodeCache::findOrCompile(const WorkGroupShape &shape,
                                                       const Compiler &compile,
                                                       std::string &error) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(shape);
  if (found == entries_.end()) {
    auto entry = std::make_unique<Entry>();
    entry->shape = shape;
    if (!compile(shape, entry->code, error))
      return nullptr;
    entry->code.recentGroupNanoseconds = &entry->recentGroupNanoseconds;
    found = entries_.emplace(shape, std::move(entry)).first;
  }
  const Entry *entry = found->second.get();
  size_t slot = nextRecent_.fetch_add(1, std::memory_order_relaxed) % kRecentCount;
  recent_[slot].store(entry, std::memory_order_release);
  return &entry->code;
}

} // namespace kiln::cpu
