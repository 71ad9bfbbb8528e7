#include "support/xxh3.hpp"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln {

std::array<uint8_t, 16> xxh3Digest128(std::span<const std::byte> bytes) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(bytes.data(), bytes.size()));
  std::array<uint8_t, 16> digest;
  std::memcpy(digest.data(), canonical.digest, digest.size());
  return digest;
}

uint64_t xxh3Checksum64(std::span<const std::byte> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

} // namespace kiln
