//===- command_sequence.hpp - Command buffers on the CPU device ------------===//
//
// A command buffer's commands, prepared once, and its runs. Preparing resolves each kernel launch
// to the work-group functions and launch parameters it runs with (what the scheduler and the
// launch job work out for every enqueue); a run then goes from step to step on the workers with
// no scheduling, no event and no allocation between them: a launch of few work-groups runs at
// once on the worker that ran the step before it, a larger one on every worker, after which the
// run goes on. Steps that need more than the work-group functions (kernels that call printf,
// the memory commands) run as commands of their own, one at a time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/kernel_launch_job.hpp"
#include "devices/cpu/thread_pool.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cpu {

/// One recorded command as the CPU device runs it.
struct PreparedStep {
  /// The launch's resolved form, for a kernel that needs nothing but its work-group functions;
  /// otherwise the step runs as a command.
  std::optional<PreparedLaunch> launch;
  /// Nothing to run (an empty NDRange).
  bool empty = false;
};

class CpuPreparedSequence final : public PreparedSequence {
public:
  std::vector<PreparedStep> steps; // one per recorded command, in order
};

class CommandSequence : public std::enable_shared_from_this<CommandSequence> {
public:
  /// The pool job that runs a command; null when the command has completed already.
  using JobMaker = std::function<std::shared_ptr<ParallelJob>(std::shared_ptr<Command>)>;

  /// One run of `commands` (prepared as `prepared`) as `run`, which completes after the last
  /// step (see DeviceDriver::submitPrepared).
  CommandSequence(std::shared_ptr<Command> run, std::shared_ptr<const RecordedCommands> commands,
                  const CpuPreparedSequence &prepared, ThreadPool &pool,
                  std::vector<WorkerScratch> &scratch, JobMaker makeJob)
      : run_(std::move(run)), commands_(std::move(commands)), prepared_(prepared), pool_(pool),
        scratch_(scratch), makeJob_(std::move(makeJob)) {}

  /// Hands the run to the pool.
  void start();

private:
  class Job;
  class LaunchJob;

  /// Runs the steps from the next one on, on the pool's worker `worker`, until one must go to
  /// the pool or every one has run.
  void runSteps(unsigned worker);
  /// Runs step `index` as a command of its own; false when the run goes on once it has
  /// finished, on another job.
  bool runAsCommand(size_t index, unsigned worker);
  /// Goes on with the next steps in a new job of the pool.
  void resume();
  /// Called when the command of a step has finished with `status`.
  static void CL_CALLBACK commandFinished(cl_event, cl_int status, void *userData);
  /// Completes the run.
  void finish(cl_int status);

  std::shared_ptr<Command> run_;
  std::shared_ptr<const RecordedCommands> commands_;
  const CpuPreparedSequence &prepared_; // kept alive by commands_
  ThreadPool &pool_;
  std::vector<WorkerScratch> &scratch_;
  JobMaker makeJob_;
  size_t next_ = 0; // only the one thread running the sequence at a time touches it
};

} // namespace kiln::cpu
