#include "runtime/scheduling/block_recycler.hpp"

#include <mutex>

namespace kiln {

BlockRecycler::~BlockRecycler() {
  for (FreeList &list : freeLists_)
    while (FreeBlock *block = list.head) {
      list.head = block->next;
      ::operator delete(block, kAlignment);
    }
}

void *BlockRecycler::allocate(size_t size) {
  size_t sizeClass = classOf(size);
  if (size == 0 || sizeClass >= kClassCount)
    return ::operator new(size == 0 ? 1 : size, kAlignment);
  FreeList &list = freeLists_[sizeClass];
  {
    std::lock_guard lock(list.mutex);
    if (FreeBlock *block = list.head) {
      list.head = block->next;
      --list.count;
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
    std::lock_guard lock(list.mutex);
    if (list.count < kMaxFreePerClass) {
      list.head = new (block) FreeBlock{list.head};
      ++list.count;
      return;
    }
  }
  ::operator delete(block, kAlignment);
}

} // namespace kiln
