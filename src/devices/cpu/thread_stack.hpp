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
};

/// The calling thread's stack; empty when the system cannot tell. Read from the system once per
/// thread (for the main thread that means parsing /proc/self/maps).
ThreadStack currentThreadStack();

/// Bytes of the calling thread's stack below the caller's frame; zero when it cannot tell.
uint64_t freeStackBytes();

} // namespace kiln::cpu
