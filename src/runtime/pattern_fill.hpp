// Filling memory with copies of a clEnqueueFillBuffer pattern, with ordinary stores.
#pragma once

#include <cstddef>
#include <span>

namespace kiln {

/// Fills `size` bytes at `target` with copies of `pattern` (a power of two of 1 to 128 bytes),
/// starting with its first byte; the last copy may be cut short.
void fillWithPattern(std::byte *target, size_t size, std::span<const std::byte> pattern);

} // namespace kiln
