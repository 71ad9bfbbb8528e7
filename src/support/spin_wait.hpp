// Bounded busy-waiting: the gap between a command's end and the thread that waits for it (or
// between two launches) is often a microsecond or two, far less than a futex sleep and wake-up
// costs. Waiters poll for a short while first and block only when the gap is long.
#pragma once

#include <chrono>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace kiln {

/// How long a thread polls before it blocks: long enough to cover a short kernel's round trip,
/// short enough that a long wait wastes a negligible share of a core.
inline constexpr std::chrono::microseconds kSpinWaitTime{50};

/// Tells the core this is a spin loop (saves power and lets a sibling hyperthread run).
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Polls `ready` for up to `budget`; true as soon as it holds, false when the time ran out.
template <typename Ready>
bool spinUntil(Ready &&ready, std::chrono::nanoseconds budget = kSpinWaitTime) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    // Read the clock only every few polls: it costs more than a poll.
    for (int poll = 0; poll < 32; ++poll) {
      if (ready())
        return true;
      cpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return ready();
  }
}

/// Polls `ready` for up to `budget`, yielding the core between polls: for waits that are
/// usually longer than spinUntil's but still far shorter than the time a sleeping thread takes
/// to be woken and scheduled again.
template <typename Ready> bool yieldUntil(Ready &&ready, std::chrono::nanoseconds budget) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int poll = 0; poll < 8; ++poll) {
      if (ready())
        return true;
      std::this_thread::yield();
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return ready();
  }
}

} // namespace kiln
