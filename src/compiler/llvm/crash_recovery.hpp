// Recovering from a crash of the compiler itself (a segmentation fault inside LLVM on some
// unusual input) instead of letting it end the application's process.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

namespace kiln::compiler {

/// Runs `body` on the calling thread. If it raises SIGSEGV, SIGBUS, SIGILL or SIGFPE on this
/// thread (a stack overflow included), execution jumps back here and the function returns
/// false with the signal's number in `signal`; the frames jumped over are abandoned (their
/// memory leaks). Signals on other threads go to the handlers the process had before, with
/// their original information, so the application's own handlers keep working.
///
/// Kiln's handlers are installed only while some thread runs `body`, and the previous ones
/// restored after, so an application that never builds a program never sees them.
bool runRecoveringFromCrashes(llvm::function_ref<void()> body, int &signal);

} // namespace kiln::compiler
