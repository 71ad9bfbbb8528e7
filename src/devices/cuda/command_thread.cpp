#include "devices/cuda/command_thread.hpp"

#include "support/spin_wait.hpp"

#include <iterator>

#include <pthread.h>

namespace kiln::cuda {

CommandThread::~CommandThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable())
    thread_.join();
}

void CommandThread::submit(Item item) {
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(item));
    pendingCount_.fetch_add(1, std::memory_order_release);
    if (!thread_.joinable())
      thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void CommandThread::gather(uint64_t waitsSeen) {
  if (hostWaits_ == nullptr)
    return;
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), lastArrival = start;
  size_t seen = pendingCount_.load(std::memory_order_acquire);
  while (seen < kGatherLimit && !stopping_.load(std::memory_order_relaxed) &&
         hostWaits_->load(std::memory_order_acquire) == waitsSeen) {
    for (int poll = 0; poll < 32; ++poll)
      cpuRelax();
    Clock::time_point now = Clock::now();
    size_t count = pendingCount_.load(std::memory_order_acquire);
    if (count != seen) {
      seen = count;
      lastArrival = now;
    }
    if (now - lastArrival >= kGatherQuiet || now - start >= kGatherTime)
      return;
  }
}

void CommandThread::run() {
  // Named for the application's debugger and profiler (15 characters at most).
  pthread_setname_np(pthread_self(), "kiln-gpu-stream");
  std::vector<Item> batch;
  uint64_t waitsSeen = hostWaits_ != nullptr ? hostWaits_->load(std::memory_order_acquire) : 0;
  for (;;) {
    // Commands found while polling follow others closely, and may gather; one that wakes a
    // sleeping thread is taken at once.
    if (spinUntil([this] { return pendingCount_.load(std::memory_order_acquire) != 0; }))
      gather(waitsSeen);
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty())
        return;
      if (hostWaits_ != nullptr)
        waitsSeen = hostWaits_->load(std::memory_order_acquire);
      batch.assign(std::make_move_iterator(pending_.begin()),
                   std::make_move_iterator(pending_.end()));
      pending_.clear();
      pendingCount_.fetch_sub(batch.size(), std::memory_order_relaxed);
    }
    execute_(batch);
    batch.clear();
  }
}

} // namespace kiln::cuda
