#include "runtime/program_cache/cache_key.hpp"

#include "support/xxh3.hpp"

namespace kiln {

std::string CacheKey::fileName() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string name;
  for (uint8_t byte : xxh3Digest128(material())) {
    name += kDigits[byte >> 4];
    name += kDigits[byte & 15];
  }
  return name;
}

} // namespace kiln
