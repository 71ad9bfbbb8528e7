// Kernels are compiled for the floating-point environment OpenCL C assumes: round to nearest
// even, denormals kept (the device reports no CL_FP_DENORM flushing), exceptions masked. A
// thread inherits its creator's environment, and an application may have changed its own (a
// renderer that flushes denormals, a solver that rounds downwards), so every thread that runs
// kernels sets the default first.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace kiln::cpu {

/// Holds the default floating-point environment on the calling thread while it lives, and gives
/// the thread back the environment it had.
class DefaultFloatEnvironment {
public:
#if defined(__x86_64__) || defined(__i386__)
  // MXCSR at reset: every exception masked, round to nearest, no flush to zero, no
  // denormals-are-zero. (x87 is not used by the generated code.)
  static constexpr unsigned kDefaultMxcsr = 0x1F80;

  DefaultFloatEnvironment() : saved_(_mm_getcsr()) {
    if (saved_ != kDefaultMxcsr)
      _mm_setcsr(kDefaultMxcsr);
  }
  ~DefaultFloatEnvironment() {
    if (saved_ != kDefaultMxcsr)
      _mm_setcsr(saved_);
  }

private:
  unsigned saved_;
#else
  DefaultFloatEnvironment() = default;
#endif

public:
  DefaultFloatEnvironment(const DefaultFloatEnvironment &) = delete;
  DefaultFloatEnvironment &operator=(const DefaultFloatEnvironment &) = delete;
};

} // namespace kiln::cpu
