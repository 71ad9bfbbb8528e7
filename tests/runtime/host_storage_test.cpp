// Memory objects' host storage (runtime/objects/memory.hpp): aligned as asked (large objects to 2
// MiB, for huge pages), writable throughout, and followed by read slack of zeros that the CPU
// device's read-ahead of indices may read past a buffer's end.
#include "runtime/objects/memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace kiln {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(HostStorage, IsAlignedWritableAndFollowedByReadableZeros) {
  for (size_t size : {size_t{1}, size_t{100}, size_t{4096}, 2 * kMiB - kStorageReadSlackBytes,
                      2 * kMiB - 1, 2 * kMiB, 2 * kMiB + 1, 5 * kMiB + 3}) {
    SCOPED_TRACE("size: " + std::to_string(size));
    AlignedStorage storage = allocateHostStorage(size, MemObject::kBaseAlignment);
    ASSERT_NE(storage, nullptr);
    auto address = reinterpret_cast<uintptr_t>(storage.get());
    EXPECT_EQ(address % MemObject::kBaseAlignment, 0u);
    if (size >= 2 * kMiB)
      EXPECT_EQ(address % (2 * kMiB), 0u);
    std::memset(storage.get(), 0xab, size);
    EXPECT_EQ(storage.get_deleter().readSlackBytes, kStorageReadSlackBytes);
    for (size_t offset = 0; offset < kStorageReadSlackBytes; ++offset)
      ASSERT_EQ(storage[size + offset], std::byte{0}) << "slack byte " << offset;
  }
}

TEST(HostStorage, ImpossibleSizesGiveNoStorage) {
  EXPECT_EQ(allocateHostStorage(SIZE_MAX, MemObject::kBaseAlignment), nullptr);
  EXPECT_EQ(allocateHostStorage(SIZE_MAX - kStorageReadSlackBytes / 2, MemObject::kBaseAlignment),
            nullptr);
}

} // namespace
} // namespace kiln
