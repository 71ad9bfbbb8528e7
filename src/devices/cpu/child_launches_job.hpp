//===- child_launches_job.hpp - Kernels that kernels enqueued, as one job ---===//
//
// The launches of a ChildLaunches command become one job of the thread pool whose items are the
// work-groups of all of them, one launch's after the other's: a recursive program's thousand
// one-work-group children spread over the workers like the work-groups of one NDRange, instead
// of a command, an event and a pool job each, which one thread makes and completes one by one.
// The launches share one arena for the kernels they enqueue in turn, which the runtime reads
// once they have all finished.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/kernel_launch_job.hpp"

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cpu {

/// One launch of a ChildLaunches command, with the work-group functions it runs.
struct ChildLaunch {
  const ChildLaunches::Child *child = nullptr;
  LaunchCode code;
  std::array<uint64_t, 3> groups{};
};

class ChildLaunchesJob final : public WorkGroupsJob {
public:
  /// `children`: the launches of the command's ChildLaunches that have work-groups, in order.
  /// `chunkSize`: see childLaunchesChunkSize.
  ChildLaunchesJob(std::shared_ptr<Command> command, std::vector<WorkerScratch> &scratch,
                   const std::vector<ChildLaunch> &children, size_t chunkSize,
                   size_t printfBufferSize);

  void run(size_t begin, size_t end, unsigned worker) override;

  void finished() override;

private:
  std::vector<PreparedLaunch> prepared_;
  /// The work-group after each launch's last, counted over all of them.
  std::vector<size_t> ends_;
  /// For the launches of kernels that call printf; the program's calls, for writing them.
  std::vector<std::optional<PrintfOutput>> printf_;
  std::vector<const std::vector<compiler::PrintfCallSite> *> printfCalls_;
  std::unique_ptr<EnqueueArena> enqueueArena_; // when some of them enqueue kernels
};

/// How many work-groups of `children` a worker claims at a time: launchChunkSize's rule for
/// all their work-groups, with the sum of the launches' estimates.
size_t childLaunchesChunkSize(const std::vector<ChildLaunch> &children, unsigned workers);

} // namespace kiln::cpu
