// The shared virtual memory allocations of one context (clSVMAlloc). Each is a buffer that the
// application never sees as a cl_mem: its storage is what every memory object of the context
// gets (host memory, or a GPU's managed memory), so the host, every device of the context and
// the memory commands address it at one address, and the commands that use it hold it alive.
#pragma once

#include "runtime/objects/memory.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace kiln {

/// An SVM allocation that holds a pointer, and how far into it the pointer is.
struct SvmLocation {
  Ref<MemObject> allocation; // null when the pointer is in none (system memory)
  size_t offset = 0;

  explicit operator bool() const { return allocation != nullptr; }
  /// Bytes of the allocation from the pointer on.
  size_t bytesAfter() const { return allocation ? allocation->size() - offset : 0; }
};

class SvmAllocations {
public:
  void add(Ref<MemObject> allocation);
  /// Forgets the allocation that starts at `base`; false when none does. Its storage is freed
  /// once the commands that use it have finished.
  bool remove(const void *base);
  /// Forgets every allocation (the application released its last reference to the context).
  void clear();

  /// The allocation holding `pointer` (its first byte up to its last).
  SvmLocation find(const void *pointer) const;

private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, Ref<MemObject>> byAddress_;
};

} // namespace kiln
