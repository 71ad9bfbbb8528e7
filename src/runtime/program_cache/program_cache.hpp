// The on-disk cache of programs built from source: one file per key, named by the key's digest,
// in the folder cache_settings.hpp describes.
//
// Several processes and threads may use one folder at once: an entry is written to a temporary
// file of its own and renamed into place, so readers see a whole entry or none. A read checks
// the entry's key material and checksum; anything else (damaged, truncated, another key's) is a
// miss and the file is removed. A hit opens and reads one file and, when the entry was last
// used more than a minute ago, updates its modification time: the least recently used entries
// are the ones removed when the folder grows past its size limit. Finding them takes a scan of
// the folder, done only on writes, and only when the folder's size ledger (size_ledger.hpp), to
// which every write adds, says the write took the folder past its limit, or when there is no
// ledger yet: a process's first build does not list a folder of thousands of entries.
//
// Any failure (no folder, read-only or full disk) only means no caching: Kiln never reports it.
#pragma once

#include "runtime/program_cache/cache_entry.hpp"
#include "runtime/program_cache/cache_settings.hpp"

namespace kiln {

class ProgramCache {
public:
  /// The program cached under `key`; null on a miss or when the cache is off.
  std::optional<CachedProgram> load(const CacheKey &key);

  /// Caches `program` under `key`, then keeps the folder within its size limit.
  void store(const CacheKey &key, const CachedProgram &program);

private:
  /// Adds `written` bytes to the folder's size ledger; scans the folder and evicts when that
  /// exceeds the limit (the scan sets the ledger to what it leaves).
  static void keepWithinLimit(const CacheSettings &settings, uint64_t written);
};

} // namespace kiln
