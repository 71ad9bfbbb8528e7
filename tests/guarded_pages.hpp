// Memory that ends right before a page the process may not touch, for tests of code that reads
// near the end of a buffer.
#pragma once

#include <cstddef>

#include <sys/mman.h>
#include <unistd.h>

namespace cltest {

/// `pages` of memory followed by one the process may not touch: a read past the end of the
/// first part faults.
class GuardedPages {
public:
  explicit GuardedPages(size_t pages) : pageBytes_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {
    mappedBytes_ = (pages + 1) * pageBytes_;
    void *mapped =
        mmap(nullptr, mappedBytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
      return;
    base_ = static_cast<std::byte *>(mapped);
    if (mprotect(base_ + pages * pageBytes_, pageBytes_, PROT_NONE) != 0) {
      munmap(base_, mappedBytes_);
      base_ = nullptr;
    }
  }
  ~GuardedPages() {
    if (base_ != nullptr)
      munmap(base_, mappedBytes_);
  }
  GuardedPages(const GuardedPages &) = delete;
  GuardedPages &operator=(const GuardedPages &) = delete;

  bool valid() const { return base_ != nullptr; }
  /// Where `bytes` bytes start that end at the guard page.
  void *endingAtGuard(size_t bytes) const { return base_ + (mappedBytes_ - pageBytes_) - bytes; }

private:
  size_t pageBytes_;
  size_t mappedBytes_ = 0;
  std::byte *base_ = nullptr;
};

} // namespace cltest
