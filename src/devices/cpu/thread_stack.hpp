// Where the calling thread's stack lies. The CPU device runs work-groups on the stack of the
// thread that runs them (a worker, or an application thread waiting for the command), and
// to_private() must recognise a pointer to a variable there.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

struct ThreadStack {
  const std::byte *base = nullptr; // lowest address
  uint64_t size = 0;

  bool contains(const void *address) const {
    const auto *byte = static_cast<const std::byte *>(address);
    return base != nullptr && byte >= base && byte < base + size;
  }
};

/// The stack of the thread that last asked, kept for the next time. Kept by whoever runs
/// work-groups on one thread at a time (a worker, the waiting thread of a pool), not in
/// thread-local storage: a library that an application loads with dlopen (as the ICD loader
/// loads Kiln) gets such storage in blocks that LeakSanitizer's exit check fails to read.
class RememberedThreadStack {
public:
  /// The calling thread's stack; empty when the system cannot tell. Read from the system
  /// (for the main thread that means parsing /proc/self/maps) only when the caller's frame is
  /// outside the stack remembered.
  const ThreadStack &current();
  /// Bytes of the calling thread's stack below the caller's frame; zero when it cannot tell.
  uint64_t freeBytes();

private:
  ThreadStack stack_;
};

} // namespace kiln::cpu
