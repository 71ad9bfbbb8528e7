// Memory for the objects every command allocates (its event, the command, the driver's job, the
// argument block): blocks of a few size classes kept on free lists and reused, so the launch
// path does not call malloc. That matters beyond malloc's own cost: these objects are made on
// the application's thread and freed on a worker, and each such free contends for the
// allocator's arena lock with the next launch's allocations. For the same reason a free list
// is two lists: freeing threads push onto a lock-free stack, and allocating threads take blocks
// from a list of their own under a lock, refilled by taking the whole stack at once, so that the
// two sides meet on a shared cache line once a batch, not once a block.
#pragma once

#include "support/adaptive_mutex.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <new>

namespace kiln {

class BlockRecycler {
public:
  BlockRecycler() = default;
  BlockRecycler(const BlockRecycler &) = delete;
  BlockRecycler &operator=(const BlockRecycler &) = delete;
  ~BlockRecycler();

  /// At least `size` bytes, aligned to a cache line.
  void *allocate(size_t size);
  /// Gives back a block from allocate(size).
  void deallocate(void *block, size_t size) noexcept;

  /// The process's recycler (owned by the platform, which is never destroyed).
  static BlockRecycler &commands();

private:
  static constexpr size_t kClassSize = 64;  // a cache line: blocks never share one
  static constexpr size_t kClassCount = 16; // blocks up to 1 KiB are recycled
  /// Free blocks a class's freed stack holds: enough for the commands in flight of busy
  /// applications; past that, blocks go back to malloc. The count is approximate (pushes racing
  /// with the allocators' taking the stack may go uncounted), and the allocators' list holds at
  /// most a stack's worth more: a bound on memory kept, not an exact one.
  static constexpr size_t kMaxFreePerClass = 4096;
  static constexpr std::align_val_t kAlignment{kClassSize};

  struct FreeBlock {
    FreeBlock *next;
  };
  struct FreeList {
    /// Where allocate() takes blocks, under the mutex.
    alignas(kClassSize) AdaptiveMutex mutex;
    FreeBlock *head = nullptr;
    /// Where deallocate() pushes them, without a lock; allocate() takes it whole (an exchange,
    /// so no block is taken while another thread reads its `next`).
    alignas(kClassSize) std::atomic<FreeBlock *> freed{nullptr};
    std::atomic<size_t> freedCount{0};
  };

  static size_t classOf(size_t size) { return (size + kClassSize - 1) / kClassSize - 1; }

  std::array<FreeList, kClassCount> freeLists_;
};

/// A standard allocator drawing from BlockRecycler::commands(), for containers and
/// std::allocate_shared on the launch path.
template <typename T> struct RecyclingAllocator {
  using value_type = T;
  RecyclingAllocator() = default;
  template <typename U> RecyclingAllocator(const RecyclingAllocator<U> &) {}

  T *allocate(size_t count) {
    return static_cast<T *>(BlockRecycler::commands().allocate(count * sizeof(T)));
  }
  void deallocate(T *pointer, size_t count) noexcept {
    BlockRecycler::commands().deallocate(pointer, count * sizeof(T));
  }
  template <typename U> bool operator==(const RecyclingAllocator<U> &) const { return true; }
};

/// Class-specific operator new and delete for objects that come and go with commands.
#define KILN_RECYCLED_ALLOCATION()                                                                 \
  static void *operator new(size_t size) {                                                         \
    return ::kiln::BlockRecycler::commands().allocate(size);                                       \
  }                                                                                                \
  static void operator delete(void *block, size_t size) noexcept {                                 \
    ::kiln::BlockRecycler::commands().deallocate(block, size);                                     \
  }

} // namespace kiln
