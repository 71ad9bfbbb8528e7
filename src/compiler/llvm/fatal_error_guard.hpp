// Running Clang and LLVM inside an application's process without letting them end it.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace kiln::compiler {

/// Runs `body` on a fresh thread with a large stack (Clang recurses deeply on nested source, and
/// an application thread may have little stack), and waits for it.
///
/// LLVM reports unrecoverable errors (llvm::report_fatal_error, allocation failures) by calling
/// exit() or abort(); inside `body` they instead unwind back here and come back as a message, so
/// a bad program fails its build instead of ending the application. A crash inside `body` (a
/// segmentation fault in LLVM, see crash_recovery.hpp) fails it the same way. Memory held by the
/// frames unwound or jumped over may leak: that is the price of staying alive. Returns true when
/// `body` ran to its end, otherwise false with `error` set.
bool runGuarded(llvm::function_ref<void()> body, std::string &error);

} // namespace kiln::compiler
