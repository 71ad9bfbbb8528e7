// Blocks of shared memory kept for reuse.
#include "runtime/objects/storage_pool.hpp"

#include "runtime/objects/context.hpp"

namespace kiln {

PooledStorage &PooledStorage::operator=(PooledStorage &&other) noexcept {
  if (this != &other) {
    giveBack();
    storage_ = std::move(other.storage_);
    size_ = other.size_;
    pool_ = other.pool_;
  }
  return *this;
}

PooledStorage::~PooledStorage() {
  giveBack();
}

void PooledStorage::giveBack() {
  if (storage_ != nullptr && pool_ != nullptr)
    pool_->giveBack(size_, std::move(storage_));
}

PooledStorage StoragePool::take(size_t size) {
  {
    std::lock_guard lock(mutex_);
    auto found = free_.find(size);
    if (found != free_.end() && !found->second.empty()) {
      AlignedStorage storage = std::move(found->second.back());
      found->second.pop_back();
      return PooledStorage(std::move(storage), size, *this);
    }
  }
  AlignedStorage storage = context_.allocateStorage(size, MemoryPlacement::Host);
  if (storage == nullptr)
    return {};
  return PooledStorage(std::move(storage), size, *this);
}

void StoragePool::giveBack(size_t size, AlignedStorage storage) {
  std::lock_guard lock(mutex_);
  std::vector<AlignedStorage> &kept = free_[size];
  if (kept.size() < kKeptPerSize)
    kept.push_back(std::move(storage));
}

} // namespace kiln
