//===- command_sequence.cpp - Command buffers on the CPU device ------------===//
#include "devices/cpu/command_sequence.hpp"

#include "devices/cpu/waiter_tag.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/queue.hpp"

#include <atomic>

namespace kiln::cpu {

/// The run, on one worker: one item. A thread waiting for a command of the run's queue may run
/// it, as it runs a small command (ThreadPool::helpUntil).
class CommandSequence::Job final : public ParallelJob {
public:
  explicit Job(std::shared_ptr<CommandSequence> sequence)
      : ParallelJob(1, 1), sequence_(std::move(sequence)) {}
  void run(size_t, size_t, unsigned worker) override { sequence_->runSteps(worker); }
  const void *waiterTag() const override { return waiterTagOf(*sequence_->run_); }
  void finished() override {}

private:
  std::shared_ptr<CommandSequence> sequence_;
};

/// A prepared launch spread over the workers; the run goes on after it.
class CommandSequence::LaunchJob final : public ParallelJob {
public:
  LaunchJob(std::shared_ptr<CommandSequence> sequence, const PreparedLaunch &launch,
            size_t chunkSize)
      : ParallelJob(launch.groupCount(), chunkSize), sequence_(std::move(sequence)),
        launch_(launch) {}
  void run(size_t begin, size_t end, unsigned worker) override {
    if (!launch_.runGroups(begin, end, sequence_->scratch_[worker]))
      failed_.store(true, std::memory_order_relaxed);
  }
  const void *waiterTag() const override { return waiterTagOf(*sequence_->run_); }
  void finished() override {
    if (failed_.load(std::memory_order_relaxed))
      sequence_->finish(CL_OUT_OF_RESOURCES);
    else
      sequence_->resume();
  }

private:
  std::shared_ptr<CommandSequence> sequence_;
  const PreparedLaunch &launch_;
  std::atomic<bool> failed_{false};
};

void CommandSequence::start() {
  resume();
}

void CommandSequence::resume() {
  pool_.submit(std::make_shared<Job>(shared_from_this()));
}

void CommandSequence::runSteps(unsigned worker) {
  while (next_ < prepared_.steps.size()) {
    size_t index = next_++;
    const PreparedStep &step = prepared_.steps[index];
    if (step.empty)
      continue;
    if (!step.launch) {
      if (!runAsCommand(index, worker))
        return;
      continue;
    }
    const PreparedLaunch &launch = *step.launch;
    size_t groups = launch.groupCount();
    size_t chunk = launch.chunkSize(pool_.workerCount());
    if (groups > chunk) {
      pool_.submit(std::make_shared<LaunchJob>(shared_from_this(), launch, chunk));
      return;
    }
    if (!launch.runGroups(0, groups, scratch_[worker]))
      return finish(CL_OUT_OF_RESOURCES);
  }
  finish(CL_COMPLETE);
}

bool CommandSequence::runAsCommand(size_t index, unsigned worker) {
  const RecordedCommand &recorded = commands_->commands[index];
  std::shared_ptr<Command> command =
      Command::makeInternal(*run_->event().queue(), recorded.type, recorded.payload);
  Ref<Event> event(&command->event());
  std::shared_ptr<ParallelJob> job = makeJob_(std::move(command));
  if (job != nullptr && job->chunkCount() == 1) {
    // What the pool does with a job of one chunk, without handing it over.
    job->run(0, job->itemCount(), worker);
    job->finished();
    job = nullptr;
  }
  if (job == nullptr && event->isFinished()) {
    if (event->status() >= 0)
      return true;
    finish(event->status());
    return false;
  }
  // The run goes on when the command has finished: after the pool has run it, or after the
  // kernels it enqueued.
  auto self = std::make_unique<std::shared_ptr<CommandSequence>>(shared_from_this());
  event->addCallback(CL_COMPLETE, &commandFinished, self.release());
  if (job != nullptr)
    pool_.submit(std::move(job));
  return false;
}

void CL_CALLBACK CommandSequence::commandFinished(cl_event, cl_int status, void *userData) {
  std::unique_ptr<std::shared_ptr<CommandSequence>> sequence(
      static_cast<std::shared_ptr<CommandSequence> *>(userData));
  if (status < 0)
    (*sequence)->finish(status);
  else
    (*sequence)->resume();
}

void CommandSequence::finish(cl_int status) {
  run_->complete(status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_COMPLETE);
}

} // namespace kiln::cpu
