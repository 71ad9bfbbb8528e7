#include "runtime/scheduling/pattern_fill.hpp"

#include "runtime/scheduling/streaming_stores.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kiln {
namespace {

/// What 128 bytes hold of a pattern repeated from `phase` bytes into it: the same for every
/// 128 bytes, since the pattern's size divides 128.
constexpr size_t kImageBytes = 128;

std::array<std::byte, kImageBytes> patternImage(std::span<const std::byte> pattern, size_t phase) {
  std::array<std::byte, kImageBytes> image;
  for (size_t index = 0; index < kImageBytes; ++index)
    image[index] = pattern[(phase + index) % pattern.size()];
  return image;
}

/// Copies of a 4 KiB block of the pattern: what fills too small for the register loop, or
/// builds without SSE2, do. One copy of the pattern at a time would cost a call per few bytes.
void fillByBlocks(std::byte *target, size_t size, std::span<const std::byte> pattern) {
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

#if defined(__SSE2__)

/// Below this the loop's set-up (and a non-temporal fill's fence) cost more than they save.
constexpr size_t kFewestRegisterFillBytes = 4096;

/// The pattern stored from eight registers, 128 bytes an iteration, from the first 16-byte
/// aligned address. Copying a block instead (memcpy's `rep movsb`) wrote half as fast on a
/// Zen 4 once the fill outgrew the caches.
template <bool kNonTemporal>
void fillFromRegisters(std::byte *target, size_t size, std::span<const std::byte> pattern) {
  size_t head = bytesToVectorStoreAlignment(target);
  fillByBlocks(target, head, pattern);
  std::array<std::byte, kImageBytes> image = patternImage(pattern, head);
  __m128i registers[kImageBytes / kVectorStoreBytes];
  for (size_t part = 0; part < std::size(registers); ++part)
    registers[part] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(image.data()) + part);
  size_t offset = head;
  for (; offset + kImageBytes <= size; offset += kImageBytes) {
    auto *line = reinterpret_cast<__m128i *>(target + offset);
    for (size_t part = 0; part < std::size(registers); ++part) {
      if constexpr (kNonTemporal)
        _mm_stream_si128(line + part, registers[part]);
      else
        _mm_store_si128(line + part, registers[part]);
    }
  }
  std::memcpy(target + offset, image.data(), size - offset);
  if constexpr (kNonTemporal)
    _mm_sfence();
}

#endif

} // namespace

void fillWithPattern(std::byte *target, size_t size, std::span<const std::byte> pattern,
                     FillStores stores) {
#if defined(__SSE2__)
  if (size >= kFewestRegisterFillBytes) {
    if (stores == FillStores::NonTemporal)
      fillFromRegisters<true>(target, size, pattern);
    else
      fillFromRegisters<false>(target, size, pattern);
    return;
  }
#endif
  (void)stores; // without SSE2, or when small, the stores are ordinary ones
  fillByBlocks(target, size, pattern);
}

} // namespace kiln
