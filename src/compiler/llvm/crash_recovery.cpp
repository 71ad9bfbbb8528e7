#include "compiler/llvm/crash_recovery.hpp"

#include <array>
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <memory>
#include <mutex>

#include <pthread.h>

namespace kiln::compiler {
namespace {

constexpr std::array<int, 4> kCrashSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

/// Enough for the handler to run after the thread's own stack overflowed.
constexpr size_t kAlternateStackSize = size_t(64) << 10;

/// Threads inside runRecoveringFromCrashes at the same time, at most; more run unprotected.
constexpr size_t kRecoverySlots = 64;

/// A thread running with crash recovery and where a crash on it returns to. The handler finds
/// its thread's slot by comparing pthread_self(): thread-local storage is no option there, as
/// the first access to a dynamically loaded library's TLS may call malloc.
struct RecoverySlot {
  std::atomic<bool> taken{false};
  std::atomic<pthread_t> thread{};
  sigjmp_buf *point = nullptr;
  volatile sig_atomic_t signal = 0;
};

/// The process-wide handler registration. Signal dispositions are process state, so this is
/// necessarily shared by every thread of the process.
struct HandlerRegistry {
  std::mutex mutex;
  unsigned activeRuns = 0;
  /// What the process had before Kiln's handler; read by the handler to forward signals.
  struct sigaction previous[NSIG] = {};
  std::array<RecoverySlot, kRecoverySlots> slots;
};

HandlerRegistry &registry() {
  static HandlerRegistry instance;
  return instance;
}

/// The calling thread's slot, or null when it has none.
RecoverySlot *slotOfThisThread() {
  pthread_t self = pthread_self();
  for (RecoverySlot &slot : registry().slots)
    if (slot.taken.load(std::memory_order_acquire) &&
        pthread_equal(slot.thread.load(std::memory_order_acquire), self))
      return &slot;
  return nullptr;
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
  RecoverySlot *slot = slotOfThisThread();
  if (slot != nullptr && slot->point != nullptr) {
    sigjmp_buf *point = slot->point;
    slot->point = nullptr; // a second crash on the way back is not recovered
    slot->signal = signal;
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

/// This thread's recovery slot for the duration of a run; empty when all slots are taken.
class SlotClaim {
public:
  SlotClaim() {
    for (RecoverySlot &slot : registry().slots) {
      bool expected = false;
      if (slot.taken.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
        slot.point = nullptr;
        slot.signal = 0;
        slot.thread.store(pthread_self(), std::memory_order_release);
        slot_ = &slot;
        return;
      }
    }
  }
  ~SlotClaim() {
    if (slot_ == nullptr)
      return;
    slot_->point = nullptr;
    slot_->thread.store(pthread_t{}, std::memory_order_release);
    slot_->taken.store(false, std::memory_order_release);
  }
  SlotClaim(const SlotClaim &) = delete;
  SlotClaim &operator=(const SlotClaim &) = delete;

  RecoverySlot *slot() const { return slot_; }

private:
  RecoverySlot *slot_ = nullptr;
};

} // namespace

bool runRecoveringFromCrashes(llvm::function_ref<void()> body, int &signal) {
  HandlerScope handlers;
  AlternateStack stack;
  SlotClaim claim;
  RecoverySlot *slot = claim.slot();
  if (slot == nullptr) {
    body(); // every slot taken: run without recovery
    return true;
  }
  sigjmp_buf point;
  // Saving the signal mask (1) restores it when the handler jumps back here.
  if (sigsetjmp(point, 1) != 0) {
    signal = slot->signal;
    return false;
  }
  slot->point = &point;
  body();
  slot->point = nullptr;
  return true;
}

} // namespace kiln::compiler
