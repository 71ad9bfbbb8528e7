#include "devices/cpu/thread_pool.hpp"

#include "devices/cpu/cpu_topology.hpp"
#include "runtime/spin_wait.hpp"

#include <algorithm>

namespace kiln::cpu {

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

ThreadPool::ThreadPool(unsigned workerCount, std::vector<int> cpus) {
  workers_.reserve(workerCount);
  for (unsigned index = 0; index < workerCount; ++index)
    workers_.emplace_back([this, index, cpus] {
      if (!cpus.empty())
        pinCurrentThread(cpus); // best effort: a refusal leaves the worker unpinned
      workerLoop(index);
    });
}

bool ThreadPool::isWorkerThread() const {
  std::thread::id self = std::this_thread::get_id();
  return std::any_of(workers_.begin(), workers_.end(),
                     [&](const std::thread &worker) { return worker.get_id() == self; });
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
  size_t items = job->itemCount();
  bool wakeSleepers;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    queuedJobs_.store(jobs_.size(), std::memory_order_release);
    // A worker about to look at the queue (polling, or finishing a job) looks under the lock
    // before it sleeps, so it takes a one-item job without a wake-up: waking a sleeper would
    // cost a system call here and a context switch there. Jobs of more items wake everyone.
    bool someoneLooking = lookingForWork_.load(std::memory_order_relaxed) != 0;
    wakeSleepers = sleepers_ != 0 && (items > 1 || !someoneLooking);
  }
  if (!wakeSleepers)
    return;
  if (items > 1)
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

std::shared_ptr<ParallelJob> ThreadPool::waitForJob(bool alreadyLooking) {
  if (!alreadyLooking)
    lookingForWork_.fetch_add(1, std::memory_order_relaxed);
  // One worker at a time polls; the others sleep at once, so idle workers never crowd out the
  // threads doing real work on a machine with as many workers as cores.
  bool polling = !pollerActive_.exchange(true, std::memory_order_relaxed);
  auto stopPolling = [&] {
    if (polling)
      pollerActive_.store(false, std::memory_order_relaxed);
    polling = false;
  };
  auto found = [&](std::shared_ptr<ParallelJob> job) {
    stopPolling();
    lookingForWork_.fetch_sub(1, std::memory_order_relaxed);
    return job;
  };
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stopping_)
      return found(nullptr);
    if (std::shared_ptr<ParallelJob> job = frontJobLocked())
      return found(std::move(job));
    if (polling) {
      // frontJobLocked() dropped the finished jobs: any job counted now is new.
      lock.unlock();
      if (!spinUntil([&] { return queuedJobs_.load(std::memory_order_acquire) != 0; }))
        stopPolling();
      lock.lock();
      continue;
    }
    // Stop counting as looking in the same critical section as the last look (see submit).
    lookingForWork_.fetch_sub(1, std::memory_order_relaxed);
    ++sleepers_;
    wake_.wait(lock);
    --sleepers_;
    lookingForWork_.fetch_add(1, std::memory_order_relaxed);
  }
}

void ThreadPool::workerLoop(unsigned index) {
  bool looking = false;
  while (std::shared_ptr<ParallelJob> job = waitForJob(looking)) {
    looking = false;
    size_t begin, end;
    while (job->claim(begin, end)) {
      job->run(begin, end, index);
      if (job->complete(end - begin)) {
        // The next command often arrives as soon as this one is reported finished: count as
        // looking for work from now on, so that it is not handed to a sleeping worker. (The
        // application's event callbacks run in finished(); one that blocked on another command
        // would be undefined behaviour by the specification of clSetEventCallback.)
        lookingForWork_.fetch_add(1, std::memory_order_relaxed);
        looking = true;
        job->finished();
        break; // every item is done
      }
    }
  }
}

} // namespace kiln::cpu
