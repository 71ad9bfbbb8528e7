// Filling memory with copies of a clEnqueueFillBuffer pattern.
#pragma once

#include <cstddef>
#include <span>

namespace kiln {

/// How a fill writes its bytes.
enum class FillStores {
  /// Ordinary stores, which leave the lines in the caches.
  Cached,
  /// Non-temporal stores where the target is aligned for them (streaming_stores.hpp), ordered
  /// before any later store of this thread.
  NonTemporal,
};

/// Fills `size` bytes at `target` with copies of `pattern` (a power of two of 1 to 128 bytes),
/// starting with its first byte; the last copy may be cut short. Large fills store the pattern
/// from registers, a whole cache line at a time.
void fillWithPattern(std::byte *target, size_t size, std::span<const std::byte> pattern,
                     FillStores stores = FillStores::Cached);

} // namespace kiln
