// The CPU device's worker pool (devices/cpu/thread_pool.hpp): every item of a job runs exactly
// once and the job finishes once, whatever its size and chunking; sleeping workers are woken for
// the work, so a long job reaches every worker and short ones after idle gaps lose none; a
// thread that waits runs the jobs it may run itself, and leaves the others to the workers.
#include "devices/cpu/thread_pool.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kiln::cpu {
namespace {

using namespace std::chrono_literals;

/// Counts each item's runs and the workers that ran any; `finished()` fulfils a promise. With
/// `workersToMeet`, a chunk waits (10 s at most) until that many workers have run one, so the
/// job ends quickly only if the pool puts that many workers on it.
class CountingJob final : public ParallelJob {
public:
  CountingJob(size_t items, size_t chunk, size_t workersToMeet = 0)
      : ParallelJob(items, chunk), runs_(items), workersToMeet_(workersToMeet) {}

  void run(size_t begin, size_t end, unsigned worker) override {
    {
      std::unique_lock lock(mutex_);
      workers_.insert(worker);
      met_.notify_all();
      met_.wait_for(lock, 10s, [&] { return workers_.size() >= workersToMeet_; });
    }
    for (size_t item = begin; item < end; ++item)
      runs_[item].fetch_add(1, std::memory_order_relaxed);
  }
  void finished() override {
    finishedCalls_.fetch_add(1);
    done_.set_value();
  }

  /// Waits for the end of the job; false after 20 s.
  bool waitDone() { return doneFuture_.wait_for(20s) == std::future_status::ready; }
  void expectEveryItemRanOnce() const {
    for (size_t item = 0; item < runs_.size(); ++item)
      ASSERT_EQ(runs_[item].load(), 1) << "item " << item;
    EXPECT_EQ(finishedCalls_.load(), 1);
  }
  size_t distinctWorkers() {
    std::lock_guard lock(mutex_);
    return workers_.size();
  }

private:
  std::vector<std::atomic<int>> runs_;
  size_t workersToMeet_;
  std::atomic<int> finishedCalls_{0};
  std::promise<void> done_;
  std::future<void> doneFuture_ = done_.get_future();
  std::mutex mutex_;
  std::condition_variable met_;
  std::set<unsigned> workers_;
};

/// A job that keeps every worker of a pool busy until release(): one item per worker, each
/// held until then. While it runs, the next job can only go to a waiting thread.
class OccupyingJob final : public ParallelJob {
public:
  explicit OccupyingJob(unsigned workers) : ParallelJob(workers, 1), workers_(workers) {}

  void run(size_t, size_t, unsigned) override {
    std::unique_lock lock(mutex_);
    ++running_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_; });
  }
  void finished() override {}

  /// Waits until every worker runs an item of this job; false after 20 s.
  bool waitAllRunning() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 20s, [&] { return running_ == workers_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

private:
  unsigned workers_;
  unsigned running_ = 0;
  bool released_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
};

/// What the tests' waiting threads wait on: a queue, for the CPU device's jobs.
const int kWaitedQueue = 1, kOtherQueue = 2;

/// Records the threads and worker numbers that ran its items.
class RecordingJob final : public ParallelJob {
public:
  /// `waiterTag`: what a thread must wait on to run it (null: no waiting thread may).
  RecordingJob(size_t items, const void *waiterTag = &kWaitedQueue)
      : ParallelJob(items, 1), ranOn_(items), workerOf_(items), waiterTag_(waiterTag) {}

  void run(size_t begin, size_t end, unsigned worker) override {
    for (size_t item = begin; item < end; ++item) {
      ranOn_[item] = std::this_thread::get_id();
      workerOf_[item] = worker;
      ran_.fetch_add(1);
    }
  }
  void finished() override { finished_.store(true); }
  const void *waiterTag() const override { return waiterTag_; }

  std::vector<std::thread::id> ranOn_;
  std::vector<unsigned> workerOf_;
  std::atomic<size_t> ran_{0};
  std::atomic<bool> finished_{false};

private:
  const void *waiterTag_;
};

/// A pool of two workers, both kept busy: a job submitted now can only go to a waiting thread
/// until release().
class BusyPool {
public:
  BusyPool() { pool.submit(occupying_); }
  ~BusyPool() { release(); }
  bool busy() { return occupying_->waitAllRunning(); }
  void release() { occupying_->release(); }
  /// Submits `job` and runs what this thread may of it, as a thread waiting on kWaitedQueue.
  void submitAndWait(const std::shared_ptr<RecordingJob> &job) {
    pool.submit(job);
    pool.helpUntil(&kWaitedQueue, [&] { return job->finished_.load(); });
  }

  ThreadPool pool{2};

private:
  std::shared_ptr<OccupyingJob> occupying_ = std::make_shared<OccupyingJob>(2);
};

/// Waits until `job` has finished.
void waitFinished(const RecordingJob &job) {
  while (!job.finished_.load())
    std::this_thread::sleep_for(1ms);
}

TEST(CpuThreadPool, AWaitingThreadRunsAOneChunkJobItself) {
  BusyPool busy;
  ASSERT_TRUE(busy.busy());
  auto job = std::make_shared<RecordingJob>(1);
  busy.submitAndWait(job);
  EXPECT_TRUE(job->finished_.load());
  EXPECT_EQ(job->ranOn_[0], std::this_thread::get_id());
  EXPECT_EQ(job->workerOf_[0], busy.pool.workerCount()); // the waiting thread's own scratch
}

TEST(CpuThreadPool, AWaitingThreadTakesOnlyTheFirstChunkOfALargerJob) {
  BusyPool busy;
  ASSERT_TRUE(busy.busy());
  auto job = std::make_shared<RecordingJob>(4);
  busy.submitAndWait(job);
  EXPECT_EQ(job->ran_.load(), 1u); // the rest waits for the workers
  EXPECT_EQ(job->ranOn_[0], std::this_thread::get_id());
  busy.release();
  waitFinished(*job);
  EXPECT_EQ(job->ran_.load(), 4u);
  for (size_t item = 1; item < 4; ++item)
    EXPECT_NE(job->ranOn_[item], std::this_thread::get_id()) << "item " << item;
}

TEST(CpuThreadPool, AWaitingThreadLeavesJobsItMayNotRun) {
  // Jobs only the workers run, and those of another queue than the one the thread waits on.
  for (const void *tag :
       {static_cast<const void *>(nullptr), static_cast<const void *>(&kOtherQueue)}) {
    BusyPool busy;
    ASSERT_TRUE(busy.busy());
    auto job = std::make_shared<RecordingJob>(1, tag);
    busy.submitAndWait(job);
    EXPECT_EQ(job->ran_.load(), 0u);
    busy.release();
    waitFinished(*job);
    EXPECT_NE(job->ranOn_[0], std::this_thread::get_id());
  }
}

TEST(CpuThreadPool, AJobNobodyWaitsForStillRuns) {
  // Kept back for a waiting thread that never comes, it goes to the workers all the same.
  ThreadPool pool(2);
  for (size_t items : {1, 3}) {
    auto job = std::make_shared<RecordingJob>(items);
    pool.submit(job);
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!job->finished_.load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(job->finished_.load()) << items << " items";
  }
}

TEST(CpuThreadPool, EveryItemRunsOnceAndTheJobFinishesOnce) {
  ThreadPool pool(4);
  for (auto [items, chunk] :
       {std::pair<size_t, size_t>{1, 1}, {2, 1}, {7, 3}, {1000, 1}, {1000, 16}, {4097, 256}}) {
    SCOPED_TRACE(std::to_string(items) + " items in chunks of " + std::to_string(chunk));
    auto job = std::make_shared<CountingJob>(items, chunk);
    pool.submit(job);
    ASSERT_TRUE(job->waitDone());
    job->expectEveryItemRanOnce();
  }
}

TEST(CpuThreadPool, JobsSubmittedTogetherAllFinish) {
  ThreadPool pool(3);
  std::vector<std::shared_ptr<CountingJob>> jobs;
  for (size_t index = 0; index < 200; ++index) {
    jobs.push_back(std::make_shared<CountingJob>(1 + index % 9, 1 + index % 4));
    pool.submit(jobs.back());
  }
  for (const auto &job : jobs) {
    ASSERT_TRUE(job->waitDone());
    job->expectEveryItemRanOnce();
  }
}

TEST(CpuThreadPool, ALongJobWakesEveryWorker) {
  // Every worker sleeps when the job comes, and every one must be woken for it: each chunk
  // waits for all of them, so a worker left asleep holds the job up for 10 s.
  constexpr unsigned kWorkers = 8;
  ThreadPool pool(kWorkers);
  std::this_thread::sleep_for(200ms); // every worker has gone to sleep
  auto start = std::chrono::steady_clock::now();
  auto job = std::make_shared<CountingJob>(kWorkers * 16, 1, kWorkers);
  pool.submit(job);
  ASSERT_TRUE(job->waitDone());
  job->expectEveryItemRanOnce();
  EXPECT_EQ(job->distinctWorkers(), kWorkers);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(CpuThreadPool, ShortJobsAfterSleepingStillRun) {
  // Between the jobs the workers sleep; each job must be taken by someone all the same.
  ThreadPool pool(4);
  for (int round = 0; round < 5; ++round) {
    std::this_thread::sleep_for(20ms);
    auto job = std::make_shared<CountingJob>(3, 1);
    pool.submit(job);
    ASSERT_TRUE(job->waitDone());
    job->expectEveryItemRanOnce();
  }
}

} // namespace
} // namespace kiln::cpu
