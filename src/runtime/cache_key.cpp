#include "runtime/cache_key.hpp"

#include <xxhash.h>

namespace kiln {

std::string CacheKey::fileName() const {
  std::span<const std::byte> bytes = material();
  XXH128_hash_t digest = XXH3_128bits(bytes.data(), bytes.size());
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, digest);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string name;
  for (unsigned char byte : canonical.digest) {
    name += kDigits[byte >> 4];
    name += kDigits[byte & 15];
  }
  return name;
}

} // namespace kiln
