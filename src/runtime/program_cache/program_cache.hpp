// The on-disk cache of programs built from source: one file per key, named by the key's digest,
// in the folder cache_settings.hpp describes.
//
// Several processes and threads may use one folder at once: an entry is written to a temporary
// file of its own and renamed into place, so readers see a whole entry or none. A read checks
// the entry's key material and checksum; anything else (damaged, truncated, another key's) is a
// miss and the file is removed. A hit opens and reads one file and, when the entry was last
// used more than a minute ago, updates its modification time: the least recently used entries
// are the ones removed when the folder grows past its size limit. Finding them takes a scan of
// the folder, done only on writes: on a process's first write, and whenever what it wrote since
// its last scan may have taken the folder past the limit. Processes writing at the same time
// can take the folder past the limit until one of them scans again.
//
// Any failure (no folder, read-only or full disk) only means no caching: Kiln never reports it.
#pragma once

#include "runtime/program_cache/cache_entry.hpp"
#include "runtime/program_cache/cache_settings.hpp"

#include <mutex>

namespace kiln {

class ProgramCache {
public:
  /// The program cached under `key`; null on a miss or when the cache is off.
  std::optional<CachedProgram> load(const CacheKey &key);

  /// Caches `program` under `key`, then keeps the folder within its size limit.
  void store(const CacheKey &key, const CachedProgram &program);

private:
  /// Adds `written` bytes to what this process knows of the folder's size; scans the folder
  /// and evicts when that may exceed the limit.
  void keepWithinLimit(const CacheSettings &settings, uint64_t written);

  std::mutex mutex_;
  // The folder and limit of the last scan, and the folder's size since then as far as this
  // process knows. A different folder or limit (the environment changed) calls for a scan.
  std::optional<CacheSettings> scanned_;
  uint64_t knownSize_ = 0;
};

} // namespace kiln
