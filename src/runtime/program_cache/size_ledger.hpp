// The cache folder's size ledger: a small file (.size) holding the total size of the folder's
// entries as the writers have counted it, so that a process's first write need not list the
// whole folder to know whether it passed the limit. Opening it takes an exclusive lock, held
// until the ledger is destroyed: the writers of all processes and threads add to it one at a
// time.
//
// The ledger may count high (an entry written twice under one key, damaged entries removed
// by readers, files a user deleted), which only brings the next scan forward; it counts low
// only by what writers that died between writing an entry and counting it wrote.
#pragma once

#include "support/unique_fd.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

class SizeLedger {
public:
  /// The name of the ledger's file in the cache folder: neither an entry's name nor a temporary
  /// file's, so scans pass it by.
  static constexpr const char kFileName[] = ".size";

  /// Opens (creating it if need be) and locks the ledger of `directory`.
  explicit SizeLedger(const std::string &directory);

  /// The size the ledger holds; none when it is new, unreadable or damaged.
  std::optional<uint64_t> size() const;
  /// Replaces the size the ledger holds.
  void setSize(uint64_t size);

private:
  UniqueFd fd_;
  bool locked_ = false;
};

} // namespace kiln
