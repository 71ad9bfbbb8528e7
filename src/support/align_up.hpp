// Rounding sizes and offsets up to a multiple of an alignment.
#pragma once

#include <cstdint>

namespace kiln {

/// `value` rounded up to a multiple of `alignment` (any non-zero value).
constexpr uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

} // namespace kiln
