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

void CommandThread::run() {
  // Named for the application's debugger and profiler (15 characters at most).
  pthread_setname_np(pthread_self(), "kiln-gpu-stream");
  std::vector<Item> batch;
  for (;;) {
    spinUntil([this] { return pendingCount_.load(std::memory_order_acquire) != 0; });
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty())
        return;
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
