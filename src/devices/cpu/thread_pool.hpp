// A persistent pool of worker threads, one per core, that share jobs made of many items (the
// work-groups of an NDRange). Workers claim items in chunks from an atomic counter, so handing
// out work takes no lock; one idle worker polls briefly before sleeping, so back-to-back launches
// start without a wake-up. Idle workers sleep on an atomic, not on a condition variable: a
// woken worker that finds every chunk already claimed goes back to sleep without the pool's
// mutex, which would otherwise hand itself from one woken worker to the next while the next job
// waits behind them. An application thread that waits for a command runs small jobs itself
// (helpUntil).
#pragma once

#include "devices/cpu/thread_stack.hpp"
#include "runtime/scheduling/block_recycler.hpp"
#include "support/adaptive_mutex.hpp"
#include "support/cache_line.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
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

  /// Runs items [begin, end) on worker `worker`: 0 <= worker < pool size for the pool's own
  /// workers, pool size for the thread in ThreadPool::helpUntil.
  virtual void run(size_t begin, size_t end, unsigned worker) = 0;
  /// What a waiting thread must be waiting on to run this job itself (see ThreadPool::helpUntil):
  /// for a command, its queue. Null (the default): only the workers run it.
  virtual const void *waiterTag() const { return nullptr; }
  /// Called once, by the worker that completed the last item.
  virtual void finished() = 0;

  size_t itemCount() const { return itemCount_; }
  size_t chunkCount() const;

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

  /// For a thread about to wait for a command: runs, as worker number workerCount(), jobs of
  /// one chunk and the first chunk of jobs nobody has started, from the front of the queue,
  /// until `done` holds or the front job is neither or has another waiterTag than `tag` (a
  /// thread waiting for its own queue never runs another thread's long command). One thread at
  /// a time does; the others return at once, as does a thread with too little stack left for
  /// kernels.
  ///
  /// A launch followed by a wait then starts, and when small ends, on the thread that waits:
  /// the command, the job and the event stay in that core's cache instead of crossing to a
  /// worker and back, each crossing a few hundred nanoseconds when the cores are on different
  /// dies. The other chunks of a larger job are the workers': a thread more than there are
  /// cores would hold chunks back whenever the system took its core away.
  void helpUntil(const void *tag, const std::function<bool()> &done);

  /// A polling worker would see a job before the thread that submitted it gets to its wait:
  /// the workers leave a job an application thread submits to that thread for this long, time
  /// to return from the enqueue and start waiting. A job nobody waits for starts this much
  /// later.
  static constexpr std::chrono::nanoseconds kWaiterReservation{1000};
  /// The longest a job is kept back while the thread that submits it wakes workers.
  static constexpr std::chrono::nanoseconds kWakeUpReservation{20000};

private:
  /// A chunk a worker has claimed, with its job; no job when the pool is stopping.
  struct Claim {
    std::shared_ptr<ParallelJob> job;
    size_t begin = 0, end = 0;
    explicit operator bool() const { return job != nullptr; }
  };

  void workerLoop(unsigned index);
  /// For helpUntil: a chunk of the front job, when it is one a thread waiting on `tag` may run.
  Claim claimForWaiter(const void *tag);
  /// Lets the workers claim the front job again (see helpUntil).
  void releaseReservation();
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
  /// Wakes sleeping workers for `chunks` chunks of work, unless workers already looking for
  /// work will take them.
  void wakeWorkersFor(size_t chunks);
  /// Whether a job has chunks to claim, or the pool is stopping: what ends a wait.
  bool hasWorkOrStop() const;
  /// Whether a job is kept back for a waiting application thread now.
  bool isReservedForWaiter() const;
  /// Sleeps until submit or the destructor wakes this worker (or spuriously).
  void sleep();

  // Three groups, a line apart: the polling worker reads the first over and over while submit
  // writes the second (and workers going idle the third), and a shared line would go back and
  // forth between them for each of those writes.
  /// Jobs with chunks nobody has claimed: incremented by submit, decremented by the worker that
  /// claims a job's last chunk. Idle workers read it without the lock.
  alignas(kNoFalseSharing) std::atomic<size_t> openJobs_{0};
  std::atomic<bool> stopping_{false};
  /// Until this monotonicNanoseconds() time the workers leave the front job to a waiting
  /// application thread (see helpUntil); 0 when no job is kept back.
  std::atomic<uint64_t> reservedUntil_{0};

  alignas(kNoFalseSharing) AdaptiveMutex mutex_; // guards jobs_
  std::deque<std::shared_ptr<ParallelJob>, RecyclingAllocator<std::shared_ptr<ParallelJob>>> jobs_;

  alignas(kNoFalseSharing) std::atomic<bool> pollerActive_{false}; // a worker polls openJobs_
  std::atomic<unsigned> lookingForWork_{0}; // workers that will look at openJobs_ before sleeping
  std::atomic<unsigned> sleepers_{0};       // workers asleep on wakeGeneration_, or about to be
  std::atomic<uint32_t> wakeGeneration_{0}; // bumped to wake sleepers
  std::atomic<bool> waiterRunning_{false};  // a thread is in helpUntil
  RememberedThreadStack waiterStack_;       // of the thread in helpUntil
  /// Chunks of jobs that application threads submitted for which a looking worker is to wake
  /// sleepers, instead of the submitting thread (see submit).
  std::atomic<size_t> deferredWakeChunks_{0};

  alignas(kNoFalseSharing) std::vector<std::thread> workers_;
};

} // namespace kiln::cpu
