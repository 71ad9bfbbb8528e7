#include "compiler/llvm/fatal_error_guard.hpp"

#include "clang/Basic/Stack.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/thread.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <optional>

namespace kiln::compiler {
namespace {

/// What the fatal error handler throws; never crosses runGuarded.
struct FatalError {
  std::string message;
};

/// Whether the current thread runs inside runGuarded (the handlers are process-wide).
thread_local bool guarded = false;

[[noreturn]] void onFatalError(void *, const char *reason, bool) {
  if (guarded)
    throw FatalError{reason ? reason : "unknown error"};
  // Outside a guarded region: behave like LLVM's default handler.
  std::fprintf(stderr, "LLVM ERROR: %s\n", reason ? reason : "unknown error");
  std::abort();
}

[[noreturn]] void onBadAlloc(void *, const char *reason, bool) {
  if (guarded)
    throw std::bad_alloc();
  std::fprintf(stderr, "LLVM ERROR: out of memory (%s)\n", reason ? reason : "");
  std::abort();
}

void installHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(onFatalError, nullptr);
    llvm::install_bad_alloc_error_handler(onBadAlloc, nullptr);
  });
}

} // namespace

bool runGuarded(llvm::function_ref<void()> body, std::string &error) {
  installHandlersOnce();
  bool finished = false;
  // Twice what Clang asks for: its own check only warns when the stack runs low.
  constexpr unsigned kStackSize = 2 * clang::DesiredStackSize;
  llvm::thread worker(std::optional<unsigned>(kStackSize), [&] {
    clang::noteBottomOfStack(/*ForceSet=*/true);
    guarded = true;
    try {
      body();
      finished = true;
    } catch (const FatalError &fatal) {
      error = "internal compiler error: " + fatal.message;
    } catch (const std::bad_alloc &) {
      error = "out of memory";
    } catch (const std::exception &exception) {
      error = std::string("internal compiler error: ") + exception.what();
    } catch (...) {
      error = "internal compiler error";
    }
    guarded = false;
  });
  worker.join();
  return finished;
}

} // namespace kiln::compiler
