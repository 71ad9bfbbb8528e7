// The shared virtual memory allocations of one context: clSVMAlloc's, and the host, device and
// shared allocations of cl_intel_unified_shared_memory, which the same machinery serves. Each is
// a buffer that the
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

class Device;

/// Which function made an allocation.
enum class SharedMemoryKind { Svm, UsmHost, UsmDevice, UsmShared };

/// An SVM allocation that holds a pointer, and how far into it the pointer is.
struct SvmLocation {
  Ref<MemObject> allocation; // null when the pointer is in none (system memory)
  size_t offset = 0;
  SharedMemoryKind kind = SharedMemoryKind::Svm;
  Device *device = nullptr; // the device a USM device or shared allocation was made for
  cl_bitfield usmFlags = 0; // CL_MEM_ALLOC_FLAGS_INTEL

  explicit operator bool() const { return allocation != nullptr; }
  /// Bytes of the allocation from the pointer on.
  size_t bytesAfter() const { return allocation ? allocation->size() - offset : 0; }
};

class SvmAllocations {
public:
  void add(Ref<MemObject> allocation, SharedMemoryKind kind = SharedMemoryKind::Svm,
           Device *device = nullptr, cl_bitfield usmFlags = 0);
  /// Forgets the allocation that starts at `base`; false when none does. Its storage is freed
  /// once the commands that use it have finished.
  bool remove(const void *base);
  /// Forgets every allocation (the application released its last reference to the context).
  void clear();

  /// The allocation holding `pointer` (its first byte up to its last).
  SvmLocation find(const void *pointer) const;
  /// Every allocation of `kind`, added to `allocations` (those a kernel told it may reach
  /// indirectly: CL_KERNEL_EXEC_INFO_INDIRECT_*_ACCESS_INTEL).
  template <typename Out> void collect(SharedMemoryKind kind, Out &allocations) const {
    std::lock_guard lock(mutex_);
    for (const auto &[base, entry] : byAddress_)
      if (entry.kind == kind)
        allocations.push_back(entry.allocation);
  }

private:
  struct Entry {
    Ref<MemObject> allocation;
    SharedMemoryKind kind;
    Device *device;
    cl_bitfield usmFlags;
  };
  mutable std::mutex mutex_;
  std::map<uintptr_t, Entry> byAddress_;
};

} // namespace kiln
