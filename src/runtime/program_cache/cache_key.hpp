// The key of an entry in the on-disk program cache: everything the cached result depends on,
// field by field, and the entry's file name, a digest of it.
#pragma once

#include "compiler/byte_stream.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace kiln {

class CacheKey {
public:
  /// Each field is stored with its size, so no two different lists of fields give the same
  /// bytes ("ab" + "c" differs from "a" + "bc").
  CacheKey &add(std::string_view field) {
    material_.text(field);
    return *this;
  }
  CacheKey &add(uint64_t field) {
    material_.number(field);
    return *this;
  }

  /// The fields as bytes. Every entry stores them and a read compares them, so a collision of
  /// the (non-cryptographic) digest can never return another program.
  std::span<const std::byte> material() const { return material_.data(); }

  /// The entry's file name: the XXH3-128 digest of the material in 32 hex digits.
  std::string fileName() const;

private:
  compiler::ByteWriter material_;
};

} // namespace kiln
