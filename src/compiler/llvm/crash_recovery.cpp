#include "compiler/llvm/crash_recovery.hpp"

#include <array>
#include <csetjmp>
#include <csignal>
#include <memory>
#include <mutex>

namespace kiln::compiler {
namespace {

constexpr std::array<int, 4> kCrashSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

/// Enough for the handler to run after the thread's own stack overflowed.
constexpr size_t kAlternateStackSize = size_t(64) << 10;

// Where a crash on this thread returns to (null outside runRecoveringFromCrashes), and which
// signal it was. Initial-exec TLS: the handler reads them, and the first access to a variable
// in dynamically allocated TLS may call malloc, which a signal handler must not.
__attribute__((tls_model("initial-exec"))) thread_local sigjmp_buf *recoveryPoint = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local int caughtSignal = 0;

/// The process-wide handler registration. Signal dispositions are process state, so this is
/// necessarily shared by every thread of the process.
struct HandlerRegistry {
  std::mutex mutex;
  unsigned activeRuns = 0;
  /// What the process had before Kiln's handler; read by the handler to forward signals.
  struct sigaction previous[NSIG] = {};
};

HandlerRegistry &registry() {
  static HandlerRegistry instance;
  return instance;
}

/// Gives a signal that is not a crash of the compiler to the handler the process had before.
void forwardToPrevious(int signal, siginfo_t *info, void *context) {
  const struct sigaction &previous = registry().previous[signal];
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
      previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
    return;
  }
  // The default action: restore it and let the fault happen again (returning re-executes the
  // faulting instruction), or re-send a signal that came from kill().
  std::signal(signal, SIG_DFL);
  if (info == nullptr || info->si_code <= 0)
    std::raise(signal);
}

void onCrashSignal(int signal, siginfo_t *info, void *context) {
  if (sigjmp_buf *point = recoveryPoint) {
    recoveryPoint = nullptr;
    caughtSignal = signal;
    siglongjmp(*point, 1);
  }
  forwardToPrevious(signal, info, context);
}

/// Kiln's handlers, installed while at least one scope exists.
class HandlerScope {
public:
  HandlerScope() {
    HandlerRegistry &handlers = registry();
    std::lock_guard lock(handlers.mutex);
    if (handlers.activeRuns++ != 0)
      return;
    struct sigaction action = {};
    action.sa_sigaction = onCrashSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (int signal : kCrashSignals)
      sigaction(signal, &action, &handlers.previous[signal]);
  }
  ~HandlerScope() {
    HandlerRegistry &handlers = registry();
    std::lock_guard lock(handlers.mutex);
    if (--handlers.activeRuns != 0)
      return;
    for (int signal : kCrashSignals)
      sigaction(signal, &handlers.previous[signal], nullptr);
  }
  HandlerScope(const HandlerScope &) = delete;
  HandlerScope &operator=(const HandlerScope &) = delete;
};

/// A signal stack for this thread, so that a stack overflow can still be handled.
class AlternateStack {
public:
  AlternateStack() : memory_(std::make_unique<char[]>(kAlternateStackSize)) {
    stack_t stack = {};
    stack.ss_sp = memory_.get();
    stack.ss_size = kAlternateStackSize;
    installed_ = sigaltstack(&stack, &previous_) == 0;
  }
  ~AlternateStack() {
    if (installed_)
      sigaltstack(&previous_, nullptr);
  }
  AlternateStack(const AlternateStack &) = delete;
  AlternateStack &operator=(const AlternateStack &) = delete;

private:
  std::unique_ptr<char[]> memory_;
  stack_t previous_ = {};
  bool installed_ = false;
};

/// Clears this thread's recovery point however `body` ends (an exception included).
struct RecoveryPointReset {
  ~RecoveryPointReset() { recoveryPoint = nullptr; }
};

} // namespace

bool runRecoveringFromCrashes(llvm::function_ref<void()> body, int &signal) {
  HandlerScope handlers;
  AlternateStack stack;
  sigjmp_buf point;
  // Saving the signal mask (1) restores it when the handler jumps back here.
  if (sigsetjmp(point, 1) != 0) {
    signal = caughtSignal;
    return false;
  }
  RecoveryPointReset reset;
  recoveryPoint = &point;
  body();
  return true;
}

} // namespace kiln::compiler
