//===- streaming_stores.hpp - Host copies that bypass the caches -===//
//
// A copy larger than the last-level cache cannot leave its data there, and its ordinary stores
// first read every line they write (read for ownership). Non-temporal stores write whole lines
// straight to memory. glibc's memcpy turns to them by itself only for one call larger than its
// threshold; the CPU device cuts large transfers into 256 KiB pieces for its workers, far below
// it, so the pieces choose here. (Fills choose in pattern_fill.hpp.)
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln {

/// The host's vector stores (SSE2) write 16 bytes; the non-temporal ones only at addresses
/// aligned to that.
inline constexpr size_t kVectorStoreBytes = 16;

/// How many bytes from `address` to the next address aligned for a vector store.
inline size_t bytesToVectorStoreAlignment(const std::byte *address) {
  return (kVectorStoreBytes - reinterpret_cast<uintptr_t>(address) % kVectorStoreBytes) %
         kVectorStoreBytes;
}

/// Copies `size` bytes (the ranges do not overlap) with non-temporal stores where the target is
/// aligned for them, and orders those stores before any later store of this thread.
void streamCopy(std::byte *target, const std::byte *source, size_t size);

} // namespace kiln
