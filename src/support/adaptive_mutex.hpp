// A mutex for short critical sections shared with other threads' hot paths (the scheduler's
// queues, an event's status): a contended lock first polls for a little while, because the
// holder is about to release it, and sleeps only if it does not. A plain std::mutex goes to the
// kernel at once, which on a launch path of a microsecond or two costs more than the work.
#pragma once

#include "support/spin_wait.hpp"

#include <mutex>

namespace kiln {

class AdaptiveMutex {
public:
  void lock() {
    for (int attempt = 0; attempt < kPollAttempts; ++attempt) {
      if (mutex_.try_lock())
        return;
      for (int pause = 0; pause < 16; ++pause)
        cpuRelax();
    }
    mutex_.lock();
  }
  bool try_lock() { return mutex_.try_lock(); }
  void unlock() { mutex_.unlock(); }
  /// For std::condition_variable, which waits on a std::mutex: the blocking path.
  std::mutex &underlying() { return mutex_; }

private:
  // About a microsecond and a half of polling on current x86 cores before sleeping.
  static constexpr int kPollAttempts = 64;
  std::mutex mutex_;
};

} // namespace kiln
