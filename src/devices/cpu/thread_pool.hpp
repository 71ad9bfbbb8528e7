// A persistent pool of worker threads, one per core, that share jobs made of many items (the
// work-groups of an NDRange). Workers claim items in chunks from an atomic counter, so handing
// out work takes no lock; one idle worker polls briefly before sleeping, so back-to-back launches
// start without a wake-up. Idle workers sleep on an atomic, not on a condition variable: a
// woken worker that finds every chunk already claimed goes back to sleep without the pool's
// mutex, which would otherwise hand itself from one woken worker to the next while the next job
// waits behind them.
#pragma once

#include "runtime/adaptive_mutex.hpp"
#include "runtime/block_recycler.hpp"
#include "runtime/cache_line.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::cpu {

/// Work for the pool: `itemCount` items, run in chunks by whichever workers are free.
class ParallelJob {
public:
  ParallelJob(size_t itemCount, size_t chunkSize);
  virtual ~ParallelJob() = default;

  /// Runs items [begin, end) on worker `worker` (0 <= worker < pool size).
  virtual void run(size_t begin, size_t end, unsigned worker) = 0;
  /// Called once, by the worker that completed the last item.
  virtual void finished() = 0;

  size_t itemCount() const { return itemCount_; }

private:
  friend class ThreadPool;
  /// Claims the next chunk; false when every item has been claimed. Exactly one claim gets the
  /// chunk that ends at itemCount().
  bool claim(size_t &begin, size_t &end);
  /// Whether one claim takes every item.
  bool isOneChunk() const { return itemCount_ <= chunkSize_; }
  /// Records `count` items done; true for the call that completes the job.
  bool complete(size_t count);

  size_t itemCount_;
  size_t chunkSize_;
  std::atomic<size_t> next_{0};
  std::atomic<size_t> done_{0};
};

class ThreadPool {
public:
  /// `cpus`: the logical CPUs the workers may run on (a sub-device's share); empty for any.
  explicit ThreadPool(unsigned workerCount, std::vector<int> cpus = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned workerCount() const { return static_cast<unsigned>(workers_.size()); }

  /// Whether the calling thread is one of this pool's workers (which cannot destroy the pool).
  bool isWorkerThread() const;

  /// Queues `job`; jobs start in the order they were submitted.
  void submit(std::shared_ptr<ParallelJob> job);

private:
  /// A chunk a worker has claimed, with its job; no job when the pool is stopping.
  struct Claim {
    std::shared_ptr<ParallelJob> job;
    size_t begin = 0, end = 0;
    explicit operator bool() const { return job != nullptr; }
  };

  void workerLoop(unsigned index);
  /// The first chunk the caller claims of the oldest job with items left, waiting for one.
  /// `alreadyLooking`: the caller already counts in lookingForWork_.
  Claim waitForJob(bool alreadyLooking);
  /// The oldest job with items left to claim, after dropping the claimed ones before it.
  std::shared_ptr<ParallelJob> frontJobLocked();
  /// The first chunk the caller claims of the oldest job with items left; none when every item
  /// is claimed.
  Claim claimFromQueue();
  /// Claims `job`'s next chunk; false when every item has been claimed. The claim of the last
  /// chunk retires the job. `locked`: the caller holds mutex_.
  bool claimNext(ParallelJob &job, size_t &begin, size_t &end, bool locked = false);
  /// For the worker that claimed a job's last chunk: the job is no longer open, and leaves the
  /// queue (with every claimed job before it). `locked`: the caller holds mutex_.
  void retireClaimedJob(bool locked);
  /// Whether a job has chunks to claim, or the pool is stopping: what ends a wait.
  bool hasWorkOrStop() const;
  /// Sleeps until submit or the destructor wakes this worker (or spuriously).
  void sleep();

  // Three groups, a line apart: the polling worker reads the first over and over while submit
  // writes the second (and workers going idle the third), and a shared line would go back and
  // forth between them for each of those writes.
  /// Jobs with chunks nobody has claimed: incremented by submit, decremented by the worker that
  /// claims a job's last chunk. Idle workers read it without the lock.
  alignas(kNoFalseSharing) std::atomic<size_t> openJobs_{0};
  std::atomic<bool> stopping_{false};

  alignas(kNoFalseSharing) AdaptiveMutex mutex_; // guards jobs_
  std::deque<std::shared_ptr<ParallelJob>, RecyclingAllocator<std::shared_ptr<ParallelJob>>> jobs_;

  alignas(kNoFalseSharing) std::atomic<bool> pollerActive_{false}; // a worker polls openJobs_
  std::atomic<unsigned> lookingForWork_{0}; // workers that will look at openJobs_ before sleeping
  std::atomic<unsigned> sleepers_{0};       // workers asleep on wakeGeneration_, or about to be
  std::atomic<uint32_t> wakeGeneration_{0}; // bumped to wake sleepers

  alignas(kNoFalseSharing) std::vector<std::thread> workers_;
};

} // namespace kiln::cpu
