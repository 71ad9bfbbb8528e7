// The command memory's free lists (runtime/scheduling/block_recycler.hpp): a freed block comes
// back from the next allocation of its size class, and blocks freed on one thread serve
// allocations on another while both run, each block with one owner at a time.
#include "runtime/scheduling/block_recycler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace kiln {
namespace {

TEST(BlockRecyclerTest, AFreedBlockServesTheNextAllocationOfItsClass) {
  BlockRecycler recycler;
  void *first = recycler.allocate(100);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  recycler.deallocate(first, 100);
  EXPECT_EQ(recycler.allocate(120), first); // 100 and 120 bytes share the 128-byte class
  void *other = recycler.allocate(200);     // another class: not the freed block
  EXPECT_NE(other, first);
  recycler.deallocate(first, 120);
  recycler.deallocate(other, 200);
}

TEST(BlockRecyclerTest, BlocksLargerThanTheClassesComeAndGoFromTheHeap) {
  BlockRecycler recycler;
  void *large = recycler.allocate(4096);
  ASSERT_NE(large, nullptr);
  std::memset(large, 1, 4096);
  recycler.deallocate(large, 4096);
  recycler.deallocate(nullptr, 64); // as operator delete allows
}

TEST(BlockRecyclerTest, BlocksFreedOnOneThreadServeAnotherWhileBothRun) {
  // As commands do: made on the application's thread, freed on a worker. Every block handed
  // over carries its number; the worker checks it, so two owners of one block would show.
  BlockRecycler recycler;
  constexpr size_t kBlocks = 200000, kSize = 256;
  std::vector<std::atomic<uint64_t *>> handed(1024);
  std::atomic<bool> corrupted{false};
  std::thread freer([&] {
    for (size_t i = 0; i < kBlocks; ++i) {
      std::atomic<uint64_t *> &slot = handed[i % handed.size()];
      uint64_t *block;
      while ((block = slot.exchange(nullptr, std::memory_order_acquire)) == nullptr)
        std::this_thread::yield();
      if (block[0] != i || block[kSize / sizeof(uint64_t) - 1] != ~uint64_t{i})
        corrupted = true;
      recycler.deallocate(block, kSize);
    }
  });
  for (size_t i = 0; i < kBlocks; ++i) {
    auto *block = static_cast<uint64_t *>(recycler.allocate(kSize));
    block[0] = i;
    block[kSize / sizeof(uint64_t) - 1] = ~uint64_t{i};
    std::atomic<uint64_t *> &slot = handed[i % handed.size()];
    while (slot.load(std::memory_order_relaxed) != nullptr)
      std::this_thread::yield();
    slot.store(block, std::memory_order_release);
  }
  freer.join();
  EXPECT_FALSE(corrupted);
}

} // namespace
} // namespace kiln
