// Where the calling thread's stack lies. The CPU device's workers run work-groups on their own
// stacks, and to_private() must recognise a pointer to a variable there.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

struct ThreadStack {
  const std::byte *base = nullptr; // lowest address
  uint64_t size = 0;
};

/// The calling thread's stack; empty when the system cannot tell.
ThreadStack currentThreadStack();

} // namespace kiln::cpu
