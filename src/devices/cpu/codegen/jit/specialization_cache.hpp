//===- specialization_cache.hpp - Machine code of work-group functions -----===//
//
// Applications often build the same program again (a new program object for the same source,
// in every run of a loop, a test or a process), and each program object specializes its kernels
// afresh at their first launches. A specialization is a pure function of the prepared program,
// the kernel and the work-group shape, and its machine code is a relocatable object: keyed by
// those, the object compiled once is linked into every later program's JIT instead of being
// optimized and compiled again.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace kiln::cpu {

/// A compiled specialization: its object file and what the launch needs to know of it.
struct CachedSpecialization {
  std::string object;
  /// The symbol of the work-group function in `object`.
  std::string symbol;
  uint32_t simdWidth = 1;
  uint64_t privateBytesPerSimdGroup = 0;
  uint32_t groupsInStep = 1;
};

/// Specializations by key, the least recently used dropped beyond a byte budget. Thread-safe.
class SpecializationCache {
public:
  explicit SpecializationCache(size_t capacityBytes) : capacityBytes_(capacityBytes) {}

  /// Shared, not copied: an entry evicted meanwhile stays valid for whoever found it.
  std::shared_ptr<const CachedSpecialization> find(llvm::StringRef key);
  void insert(llvm::StringRef key, CachedSpecialization specialization);

private:
  struct Entry {
    std::string key;
    std::shared_ptr<const CachedSpecialization> specialization;
  };
  void evictBeyondCapacity();

  const size_t capacityBytes_;
  std::mutex mutex_;
  std::list<Entry> entries_; // most recently used first
  llvm::StringMap<std::list<Entry>::iterator> index_;
  size_t sizeBytes_ = 0;
};

} // namespace kiln::cpu
