//===- specialization_cache.cpp - Machine code of work-group functions -----===//
#include "devices/cpu/codegen/jit/specialization_cache.hpp"

namespace kiln::cpu {

std::shared_ptr<const CachedSpecialization> SpecializationCache::find(llvm::StringRef key) {
  std::lock_guard lock(mutex_);
  auto found = index_.find(key);
  if (found == index_.end())
    return nullptr;
  entries_.splice(entries_.begin(), entries_, found->second);
  return found->second->specialization;
}

void SpecializationCache::insert(llvm::StringRef key, CachedSpecialization specialization) {
  if (specialization.object.size() > capacityBytes_)
    return;
  std::lock_guard lock(mutex_);
  if (index_.contains(key))
    return;
  sizeBytes_ += specialization.object.size();
  entries_.push_front(
      Entry{key.str(), std::make_shared<const CachedSpecialization>(std::move(specialization))});
  index_[key] = entries_.begin();
  evictBeyondCapacity();
}

void SpecializationCache::evictBeyondCapacity() {
  while (sizeBytes_ > capacityBytes_ && !entries_.empty()) {
    Entry &oldest = entries_.back();
    sizeBytes_ -= oldest.specialization->object.size();
    index_.erase(oldest.key);
    entries_.pop_back();
  }
}

} // namespace kiln::cpu
