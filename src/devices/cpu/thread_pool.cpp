#include "devices/cpu/thread_pool.hpp"

#include "devices/cpu/cpu_topology.hpp"
#include "devices/cpu/float_environment.hpp"
#include "support/monotonic_clock.hpp"
#include "support/spin_wait.hpp"

#include <algorithm>

namespace kiln::cpu {

namespace {

/// The stack a waiting thread must have free to run kernels: half of the 8 MiB a worker gets
/// from the usual stack limit, so that a kernel whose private arrays fit on a worker's stack
/// fits there too.
constexpr uint64_t kWaiterStackBytes = uint64_t{4} << 20;

} // namespace

ParallelJob::ParallelJob(size_t itemCount, size_t chunkSize)
    : itemCount_(itemCount), chunkSize_(std::max<size_t>(1, chunkSize)) {}

size_t ParallelJob::chunkCount() const {
  return (itemCount_ + chunkSize_ - 1) / chunkSize_;
}

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
        pinCurrentThread(cpus);            // best effort: a refusal leaves the worker unpinned
      DefaultFloatEnvironment environment; // not the creating thread's
      workerLoop(index);
    });
}

bool ThreadPool::isWorkerThread() const {
  std::thread::id self = std::this_thread::get_id();
  return std::any_of(workers_.begin(), workers_.end(),
                     [&](const std::thread &worker) { return worker.get_id() == self; });
}

ThreadPool::~ThreadPool() {
  stopping_.store(true);
  wakeGeneration_.fetch_add(1);
  wakeGeneration_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void ThreadPool::submit(std::shared_ptr<ParallelJob> job) {
  size_t chunks = job->chunkCount();
  // Only for an application thread: a worker's submissions (the next command of a queue, on
  // the completion of the one before) go to whichever thread is free first.
  bool reserve = job->waiterTag() != nullptr && !isWorkerThread();
  {
    std::lock_guard lock(mutex_);
    // Until this thread is through with waking workers, which may take a system call.
    if (reserve)
      reservedUntil_.store(monotonicNanoseconds() + kWakeUpReservation.count(),
                           std::memory_order_relaxed);
    // Counted before any worker can claim it (and lower the count for it).
    // Sequentially consistent with sleep(): either a worker going to sleep sees this job open, or
    // this sees it among the sleepers (or the looking) and wakes it.
    openJobs_.fetch_add(1);
    jobs_.push_back(std::move(job));
  }
  size_t forWorkers = std::max<size_t>(1, chunks - (reserve ? 1 : 0));
  if (reserve && lookingForWork_.load() != 0)
    // A worker looking for work sees this job before it sleeps (see sleep()) and wakes the
    // others for it: this thread goes on to its wait without the system call, and starts the
    // first chunk while they wake.
    deferredWakeChunks_.fetch_add(forWorkers);
  else
    wakeWorkersFor(forWorkers);
  if (reserve)
    reservedUntil_.store(monotonicNanoseconds() + kWaiterReservation.count(),
                         std::memory_order_relaxed);
}

void ThreadPool::wakeWorkersFor(size_t chunks) {
  if (sleepers_.load() == 0)
    return;
  // A worker about to look for work (polling, or finishing a job) checks openJobs_ before it
  // sleeps, so it takes a chunk without a wake-up: waking a sleeper would cost a system call
  // here and a context switch there. But each such worker takes one chunk before it looks
  // again: jobs already open count too (the children a finished kernel enqueued, submitted one
  // after another by the worker that finished it, would otherwise each find the same looking
  // worker and run one at a time). Jobs of more chunks than there are such workers wake
  // everyone.
  if (std::max<size_t>(chunks, openJobs_.load()) <= lookingForWork_.load())
    return;
  wakeGeneration_.fetch_add(1);
  if (chunks > 1)
    wakeGeneration_.notify_all();
  else
    wakeGeneration_.notify_one();
}

std::shared_ptr<ParallelJob> ThreadPool::frontJobLocked() {
  // Drop jobs whose items have all been claimed: the workers running their last chunks hold
  // their own references.
  while (!jobs_.empty() &&
         jobs_.front()->next_.load(std::memory_order_relaxed) >= jobs_.front()->itemCount_)
    jobs_.pop_front();
  return jobs_.empty() ? nullptr : jobs_.front();
}

void ThreadPool::retireClaimedJob(bool locked) {
  openJobs_.fetch_sub(1, std::memory_order_release);
  // The queue's reference goes now, not when the next job comes: a command holds its memory
  // objects and its context, which the application may be waiting to see destroyed.
  if (locked) {
    frontJobLocked();
    return;
  }
  std::lock_guard lock(mutex_);
  frontJobLocked();
}

bool ThreadPool::claimNext(ParallelJob &job, size_t &begin, size_t &end, bool locked) {
  if (!job.claim(begin, end))
    return false;
  if (end == job.itemCount())
    retireClaimedJob(locked);
  return true;
}

bool ThreadPool::isReservedForWaiter() const {
  // Acquire: a worker that sees the reservation released also sees the wake-up the waiting
  // thread left it (deferredWakeChunks_) before releasing it.
  uint64_t until = reservedUntil_.load(std::memory_order_acquire);
  return until != 0 && monotonicNanoseconds() < until;
}

bool ThreadPool::hasWorkOrStop() const {
  return openJobs_.load(std::memory_order_acquire) != 0 ||
         stopping_.load(std::memory_order_acquire);
}

void ThreadPool::sleep() {
  uint32_t generation = wakeGeneration_.load();
  // No longer looking, now sleeping: submit reads these after opening its job (see there).
  sleepers_.fetch_add(1);
  lookingForWork_.fetch_sub(1);
  if (openJobs_.load() == 0 && !stopping_.load())
    wakeGeneration_.wait(generation);
  lookingForWork_.fetch_add(1);
  sleepers_.fetch_sub(1);
}

ThreadPool::Claim ThreadPool::claimFromQueue() {
  std::unique_lock lock(mutex_);
  while (std::shared_ptr<ParallelJob> job = frontJobLocked()) {
    Claim claim{std::move(job)};
    // A job of one chunk (most launches) is claimed, and so retired, under the lock that found
    // it. The workers woken together for a job of many chunks claim theirs after the lock, not
    // one at a time under it.
    bool underLock = claim.job->isOneChunk();
    if (!underLock)
      lock.unlock();
    if (claimNext(*claim.job, claim.begin, claim.end, underLock))
      return claim;
    if (!underLock)
      lock.lock(); // others claimed the rest since: frontJobLocked drops the job now
  }
  return {};
}

ThreadPool::Claim ThreadPool::claimForWaiter(const void *tag) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<ParallelJob> job = frontJobLocked();
  if (job == nullptr || job->waiterTag() != tag)
    return {};
  if (!job->isOneChunk() && job->next_.load(std::memory_order_relaxed) != 0)
    return {}; // the workers have started it: its other chunks are theirs
  Claim claim{std::move(job)};
  if (!claimNext(*claim.job, claim.begin, claim.end, true))
    return {};
  return claim;
}

void ThreadPool::releaseReservation() {
  if (reservedUntil_.load(std::memory_order_relaxed) != 0)
    reservedUntil_.store(0, std::memory_order_release);
}

void ThreadPool::helpUntil(const void *tag, const std::function<bool()> &done) {
  if (openJobs_.load(std::memory_order_acquire) == 0 ||
      waiterRunning_.exchange(true, std::memory_order_acquire))
    return;
  if (waiterStack_.freeBytes() >= kWaiterStackBytes) {
    DefaultFloatEnvironment environment; // the application's stays its own
    while (!done()) {
      Claim claim = claimForWaiter(tag);
      if (!claim)
        break;
      releaseReservation(); // the rest of a job of several chunks is the workers'
      ParallelJob &job = *claim.job;
      job.run(claim.begin, claim.end, workerCount());
      if (job.complete(claim.end - claim.begin))
        job.finished();
    }
  }
  releaseReservation(); // what this thread may not run is the workers'
  waiterRunning_.store(false, std::memory_order_release);
}

ThreadPool::Claim ThreadPool::waitForJob(bool alreadyLooking) {
  if (!alreadyLooking)
    lookingForWork_.fetch_add(1);
  // One worker at a time polls; the others sleep at once, so idle workers never crowd out the
  // threads doing real work on a machine with as many workers as cores.
  bool polling = !pollerActive_.exchange(true, std::memory_order_relaxed);
  auto stopPolling = [&] {
    if (polling)
      pollerActive_.store(false, std::memory_order_relaxed);
    polling = false;
  };
  auto found = [&](Claim claim) {
    stopPolling();
    lookingForWork_.fetch_sub(1);
    // Jobs that were open when this worker still counted as looking may now have no one
    // coming for them: pass the wake-up on.
    if (claim)
      wakeWorkersFor(0);
    return claim;
  };
  for (;;) {
    if (stopping_.load(std::memory_order_acquire))
      return found({});
    if (openJobs_.load(std::memory_order_acquire) != 0) {
      if (deferredWakeChunks_.load(std::memory_order_relaxed) != 0)
        wakeWorkersFor(deferredWakeChunks_.exchange(0));
      if (isReservedForWaiter()) {
        cpuRelax();
        continue;
      }
      if (Claim claim = claimFromQueue())
        return found(std::move(claim));
      // The last chunk was claimed after the count was read; its claimer is about to lower it.
      cpuRelax();
      continue;
    }
    if (polling && spinUntil([&] { return hasWorkOrStop(); }))
      continue;
    stopPolling();
    sleep();
  }
}

void ThreadPool::workerLoop(unsigned index) {
  bool looking = false;
  while (Claim claim = waitForJob(looking)) {
    looking = false;
    ParallelJob &job = *claim.job;
    size_t begin = claim.begin, end = claim.end;
    do {
      job.run(begin, end, index);
      if (job.complete(end - begin)) {
        // The next command often arrives as soon as this one is reported finished: count as
        // looking for work from now on, so that it is not handed to a sleeping worker. (The
        // application's event callbacks run in finished(); one that blocked on another command
        // would be undefined behaviour by the specification of clSetEventCallback.)
        lookingForWork_.fetch_add(1, std::memory_order_relaxed);
        looking = true;
        job.finished();
        break; // every item is done
      }
    } while (claimNext(job, begin, end));
  }
}

} // namespace kiln::cpu
