// Where the on-disk program cache lives and how large it may grow, from the environment:
//   KILN_CACHE=0          no cache
//   KILN_CACHE_DIR        the folder (default: $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln)
//   KILN_CACHE_MAX_SIZE   bytes, or with a K, M or G suffix (powers of 1024); default 256M
// Read at every build: a few getenv calls cost nothing next to a build, and a process (the test
// suite) can turn the cache on and off between builds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

struct CacheSettings {
  std::string directory;
  uint64_t maxSize = 0;
};

inline constexpr uint64_t kDefaultCacheMaxSize = uint64_t{256} << 20;

/// Null when the cache is off: turned off, or no folder to put it in.
std::optional<CacheSettings> cacheSettingsFromEnvironment();

/// "4096", "64K", "256M", "2G"; null when `text` is none of those.
std::optional<uint64_t> parseCacheSize(const std::string &text);

} // namespace kiln
