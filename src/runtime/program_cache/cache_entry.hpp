// One entry of the on-disk program cache as the bytes of its file: a header (magic, format
// version, sizes, an XXH3 checksum of the rest), the key's material, and the cached build.
#pragma once

#include "compiler/frontend.hpp"
#include "runtime/program_cache/cache_key.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln {

/// What a successful build from source leaves for the next build of the same key.
struct CachedProgram {
  std::string log;
  compiler::Bitcode module; // the linked executable
  compiler::ProgramInfo info;
  std::vector<std::byte> deviceCode; // DeviceProgram::serialize(); empty when not cacheable
};

std::vector<std::byte> encodeCacheEntry(const CacheKey &key, const CachedProgram &program);

/// The program in `bytes`; null unless they are an intact entry of exactly `key`.
std::optional<CachedProgram> decodeCacheEntry(std::span<const std::byte> bytes,
                                              const CacheKey &key);

} // namespace kiln
