#include "support/monotonic_clock.hpp"

#include <chrono>

namespace kiln {

cl_ulong monotonicNanoseconds() {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<cl_ulong>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
}

} // namespace kiln
