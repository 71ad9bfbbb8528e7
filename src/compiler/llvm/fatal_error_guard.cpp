#include "compiler/llvm/fatal_error_guard.hpp"

#include "compiler/llvm/crash_recovery.hpp"

#include "clang/Basic/Stack.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>

#include <csignal>

#include <pthread.h>

namespace kiln::compiler {
namespace {

constexpr size_t kLargeStack = size_t(512) << 20;

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

struct StackTask {
  llvm::function_ref<void(size_t)> body;
  size_t stackSize;
};

void *runTask(void *task) {
  auto *stackTask = static_cast<StackTask *>(task);
  stackTask->body(stackTask->stackSize);
  return nullptr;
}

// Clang parses and generates code for nested expressions by recursion: a long chain such as
// `1+1+...+1` (generated sources have them) needs about 100 bytes of stack per operand, far
// beyond the 8 MiB Clang asks for. The stack is only address space until touched, so reserve a
// lot; where even that cannot be had, fall back to smaller stacks and finally to this thread.
// `body` gets the stack size, 0 for the calling thread's.
void runOnLargeStack(llvm::function_ref<void(size_t)> body) {
  for (size_t size : {kLargeStack, size_t(64) << 20, 2 * clang::DesiredStackSize}) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0)
      break;
    StackTask task{body, size};
    pthread_t thread;
    bool started = pthread_attr_setstacksize(&attributes, size) == 0 &&
                   pthread_create(&thread, &attributes, runTask, &task) == 0;
    pthread_attr_destroy(&attributes);
    if (started) {
      pthread_join(thread, nullptr);
      return;
    }
  }
  body(0);
}

std::string signalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "segmentation fault";
  case SIGBUS:
    return "bus error";
  case SIGILL:
    return "illegal instruction";
  case SIGFPE:
    return "arithmetic exception";
  default:
    return "signal " + std::to_string(signal);
  }
}

} // namespace

bool runGuarded(llvm::function_ref<void()> body, std::string &error) {
  installHandlersOnce();
  bool finished = false;
  runOnLargeStack([&](size_t stackSize) {
    // On a small stack, let Clang watch its depth (it warns, then continues on a new thread of
    // its own); on the large one its 8 MiB estimate would only produce a false warning.
    if (stackSize < kLargeStack)
      clang::noteBottomOfStack(/*ForceSet=*/stackSize != 0);
    guarded = true;
    int signal = 0;
    bool survived = runRecoveringFromCrashes(
        [&] {
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
        },
        signal);
    if (!survived)
      error = "internal compiler error: the compiler crashed (" + signalName(signal) + ")";
    guarded = false;
  });
  return finished;
}

} // namespace kiln::compiler
