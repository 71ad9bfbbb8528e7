#include "devices/cpu/thread_pool.hpp"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
namespace {

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// How long an idle worker polls for new work before it sleeps.
constexpr auto kSpinTime = std::chrono::microseconds(50);

} // namespace

ParallelJob::ParallelJob(size_t itemCount, size_t chunkSize)
    : itemCount_(itemCount), chunkSize_(std::max<size_t>(1, chunkSize)) {}

bool ParallelJob::claim(size_t &begin, size_t &end) {
  begin = next_.fetch_add(chunkSize_, std::memory_order_relaxed);
  if (begin >= itemCount_)
    return false;
  end = std::min(itemCount_, begin + chunkSize_);
  return true;
}

bool ParallelJob::complete(size_t count) {
  return done_.fetch_add(count, std::memory_order_acq_rel) + count == itemCount_;
}

ThreadPool::ThreadPool(unsigned workerCount) {
  workers_.reserve(workerCount);
  for (unsigned index = 0; index < workerCount; ++index)
    workers_.emplace_back([this, index] { workerLoop(index); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void ThreadPool::submit(std::shared_ptr<ParallelJob> job) {
  bool many = job->itemCount() > 1;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    queuedJobs_.store(jobs_.size(), std::memory_order_release);
  }
  if (many)
    wake_.notify_all();
  else
    wake_.notify_one();
}

std::shared_ptr<ParallelJob> ThreadPool::frontJobLocked() {
  // Drop jobs whose items have all been claimed: the workers running their last chunks hold
  // their own references.
  while (!jobs_.empty() &&
         jobs_.front()->next_.load(std::memory_order_relaxed) >= jobs_.front()->itemCount_)
    jobs_.pop_front();
  queuedJobs_.store(jobs_.size(), std::memory_order_release);
  return jobs_.empty() ? nullptr : jobs_.front();
}

std::shared_ptr<ParallelJob> ThreadPool::waitForJob() {
  auto spinUntil = std::chrono::steady_clock::now() + kSpinTime;
  while (queuedJobs_.load(std::memory_order_acquire) == 0 &&
         std::chrono::steady_clock::now() < spinUntil) {
    for (int i = 0; i < 64; ++i)
      cpuRelax();
  }
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stopping_)
      return nullptr;
    if (std::shared_ptr<ParallelJob> job = frontJobLocked())
      return job;
    wake_.wait(lock);
  }
}

void ThreadPool::workerLoop(unsigned index) {
  while (std::shared_ptr<ParallelJob> job = waitForJob()) {
    size_t begin, end;
    while (job->claim(begin, end)) {
      job->run(begin, end, index);
      if (job->complete(end - begin))
        job->finished();
    }
  }
}

} // namespace kiln::cpu
