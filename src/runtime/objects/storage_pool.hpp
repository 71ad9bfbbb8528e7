// Blocks of memory that a context's devices and the host both address, kept for reuse. Device-side
// enqueue takes a block for every launch of a kernel that enqueues (its arena), and a recursive
// program launches thousands of those: allocating each anew (a GPU's pinned host memory, a
// host mapping) costs more than the launch.
#pragma once

#include "runtime/objects/memory.hpp"

#include <map>
#include <mutex>
#include <vector>

namespace kiln {

class Context;
class StoragePool;

/// A block taken from a pool, given back when destroyed.
class PooledStorage {
public:
  PooledStorage() = default;
  PooledStorage(AlignedStorage storage, size_t size, StoragePool &pool)
      : storage_(std::move(storage)), size_(size), pool_(&pool) {}
  PooledStorage(PooledStorage &&other) noexcept = default;
  PooledStorage &operator=(PooledStorage &&other) noexcept;
  ~PooledStorage();

  std::byte *get() const { return storage_.get(); }
  size_t size() const { return size_; }
  explicit operator bool() const { return storage_ != nullptr; }

private:
  void giveBack();

  AlignedStorage storage_;
  size_t size_ = 0;
  StoragePool *pool_ = nullptr;
};

class StoragePool {
public:
  /// Blocks come from `context` (Context::allocateStorage) in the host's memory: a device reads
  /// and writes them where they are, and the host reads what a kernel wrote without moving it.
  explicit StoragePool(const Context &context) : context_(context) {}

  /// A block of at least `size` bytes; null when out of memory.
  PooledStorage take(size_t size);

private:
  friend class PooledStorage;
  void giveBack(size_t size, AlignedStorage storage);

  /// Blocks kept per size; no more than this many of each.
  static constexpr size_t kKeptPerSize = 64;

  const Context &context_;
  std::mutex mutex_;
  std::map<size_t, std::vector<AlignedStorage>> free_;
};

} // namespace kiln
