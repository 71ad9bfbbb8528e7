#include "runtime/scheduling/block_recycler.hpp"

#include <mutex>

namespace kiln {

BlockRecycler::~BlockRecycler() {
  auto release = [](FreeBlock *block) {
    while (block != nullptr) {
      FreeBlock *next = block->next;
      ::operator delete(block, kAlignment);
      block = next;
    }
  };
  for (FreeList &list : freeLists_) {
    release(list.head);
    release(list.freed.load(std::memory_order_acquire));
  }
}

void *BlockRecycler::allocate(size_t size) {
  size_t sizeClass = classOf(size);
  if (size == 0 || sizeClass >= kClassCount)
    return ::operator new(size == 0 ? 1 : size, kAlignment);
  FreeList &list = freeLists_[sizeClass];
  {
    std::lock_guard lock(list.mutex);
    if (list.head == nullptr && list.freed.load(std::memory_order_relaxed) != nullptr) {
      list.head = list.freed.exchange(nullptr, std::memory_order_acquire);
      list.freedCount.store(0, std::memory_order_relaxed);
    }
    if (FreeBlock *block = list.head) {
      list.head = block->next;
      return block;
    }
  }
  return ::operator new((sizeClass + 1) * kClassSize, kAlignment);
}

void BlockRecycler::deallocate(void *block, size_t size) noexcept {
  if (block == nullptr)
    return;
  size_t sizeClass = classOf(size);
  if (size != 0 && sizeClass < kClassCount) {
    FreeList &list = freeLists_[sizeClass];
    if (list.freedCount.load(std::memory_order_relaxed) < kMaxFreePerClass) {
      list.freedCount.fetch_add(1, std::memory_order_relaxed);
      auto *freed = new (block) FreeBlock{list.freed.load(std::memory_order_relaxed)};
      while (!list.freed.compare_exchange_weak(freed->next, freed, std::memory_order_release,
                                               std::memory_order_relaxed)) {
      }
      return;
    }
  }
  ::operator delete(block, kAlignment);
}

} // namespace kiln
