//===- streaming_stores.hpp - Host copies and fills that bypass the caches -===//
//
// A copy or fill larger than the last-level cache cannot leave its data there, and its ordinary
// stores first read every line they write (read for ownership): a fill of 64 MiB moved 128 MiB.
// Non-temporal stores write whole lines straight to memory. glibc's memcpy turns to them by
// itself only for one call larger than its threshold; the CPU device cuts large transfers into
// 256 KiB pieces for its workers, far below it, so the pieces choose here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <span>

namespace kiln {

/// Copies `size` bytes (the ranges do not overlap) with non-temporal stores where the target is
/// aligned for them, and orders those stores before any later store of this thread.
void streamCopy(std::byte *target, const std::byte *source, size_t size);

/// Fills `size` bytes with copies of `pattern` (1 to 128 bytes, a power of two), starting with
/// its first byte, the same way.
void streamPattern(std::byte *target, size_t size, std::span<const std::byte> pattern);

} // namespace kiln
