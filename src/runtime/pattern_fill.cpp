#include "runtime/pattern_fill.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace kiln {

// One copy of the pattern at a time costs a call per few bytes: the pattern is repeated over a
// block first, and the block copied.
void fillWithPattern(std::byte *target, size_t size, std::span<const std::byte> pattern) {
  if (size == 0) // the target may be null then, which memset does not allow
    return;
  if (pattern.size() == 1) {
    std::memset(target, static_cast<int>(pattern[0]), size);
    return;
  }
  std::array<std::byte, 4096> block;
  size_t blockSize = std::min(block.size(), size);
  for (size_t offset = 0; offset < blockSize; offset += pattern.size())
    std::memcpy(block.data() + offset, pattern.data(), pattern.size());
  for (size_t offset = 0; offset < size; offset += blockSize)
    std::memcpy(target + offset, block.data(), std::min(blockSize, size - offset));
}

} // namespace kiln
