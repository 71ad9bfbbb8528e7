//===- kernel_launch_job.hpp - An NDRange run by the CPU device's workers --===//
//
// A kernel launch becomes one job of the thread pool, whose items are the NDRange's work-groups:
// each worker runs chunks of them with scratch memory it keeps from one work-group to the next,
// calling the work-group function of each group's shape (the narrower last groups of a
// non-uniform NDRange have their own).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/cpu_program.hpp"
#include "devices/cpu/host_cpu.hpp"
#include "devices/cpu/launch_buffers.hpp"
#include "devices/cpu/thread_pool.hpp"
#include "devices/cpu/thread_stack.hpp"
#include "devices/cpu/waiter_tag.hpp"
#include "runtime/printf/printf_output.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/device_enqueue.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cpu {

/// Memory a worker reuses from one work-group to the next: for work-groups run in step, one
/// stretch of each kind per group.
struct WorkerScratch {
  AlignedStorage localMemory;
  size_t localCapacity = 0;
  AlignedStorage privateMemory;
  size_t privateCapacity = 0;
  /// The stack of the thread running this scratch's work-groups (a worker, or the waiting one).
  RememberedThreadStack stack;
  /// Runs of one work-group since this thread last timed one (PreparedLaunch::runGroups).
  unsigned untimedRuns = 0;

  /// Grows `storage` to at least `size` bytes; false when out of memory.
  static bool reserve(AlignedStorage &storage, size_t &capacity, size_t size) {
    if (size <= capacity)
      return true;
    storage = allocateAligned(size, kLocalMemoryAlignment);
    capacity = storage ? size : 0;
    return storage != nullptr;
  }
};

/// The work-group functions of one launch: a work-group's index in `byEdges` has bit `dim` set
/// when the group is the last, narrower one of dimension `dim` (non-uniform work-groups).
struct LaunchCode {
  std::array<const WorkGroupCode *, 8> byEdges{};
  /// Bytes of WorkGroupParams::privateMemory the largest of them needs.
  uint64_t privateMemorySize = 0;
  /// They may use non-temporal stores (streaming_stores.hpp): the workers must fence them.
  bool streamingStores = false;
  /// Neighbouring work-groups a worker runs in step, each taking its turn (WorkGroupParams::turn):
  /// the most any of them asks for.
  uint32_t groupsInStep = 1;

  /// Finds (or compiles) the functions the launch of `range` needs, of the shapes `common` says
  /// everything of but the sizes and offset. False, with `error` set, when one cannot be
  /// compiled.
  bool find(const CpuKernel &kernel, const NDRange &range, const WorkGroupShape &common,
            std::string &error);
};

/// Whether a launch's stores stream past the caches. Only when its output, the buffers it
/// writes without reading them, is large, a quarter of the last-level cache (where glibc's
/// memcpy starts to use non-temporal stores: the cache is shared with other cores, and other
/// data of the application is in it too), and its buffers together do not fit in that cache: a
/// kernel launched again and again over data that fits (the steps of a bitonic sort over 16 MiB)
/// finds it in the cache the next time, unless its stores sent it to memory; it ran 2.3 times
/// slower with streaming stores. A buffer the kernel updates in place is no output: its reads
/// have brought the lines to the cache already, and streaming them out only evicts them (the
/// suite's fill update, 64 MiB updated in place, ran 0.8 times as fast on a 2-core Zen 4).
bool shouldStreamStores(const HostCpu &host, const LaunchBuffers &buffers);

/// What a launch's work-groups share, for the work-group functions: everything but printf's
/// buffer and device-side enqueue's arena, which the caller adds where the kernel uses them.
struct PreparedLaunch {
  LaunchCode code;
  LaunchParams params{};
  /// Bytes of each work-group's local memory: the launch's, then any work-group scratch.
  size_t localMemoryReserved = 0;

  PreparedLaunch(const KernelLaunch &launch, const LaunchCode &code,
                 const std::array<uint64_t, 3> &groups);
  /// A launch of `kernel` over `range` with the argument block at `arguments` and
  /// `localMemorySize` bytes of local memory a work-group.
  PreparedLaunch(const DeviceKernel &kernel, const NDRange &range, const std::byte *arguments,
                 size_t localMemorySize, const LaunchCode &code,
                 const std::array<uint64_t, 3> &groups);

  size_t groupCount() const {
    return params.numGroups[0] * params.numGroups[1] * params.numGroups[2];
  }

  /// launchChunkSize of this launch, with the estimate found when it was prepared.
  size_t chunkSize(unsigned workers) const;

  /// Runs work-groups [begin, end) (linear indices) with `scratch`; false when its memory
  /// cannot grow to what they need. Updates the code's estimate of a work-group's time.
  bool runGroups(size_t begin, size_t end, WorkerScratch &scratch) const;

private:
  bool runGroupsUntimed(size_t begin, size_t end, WorkerScratch &scratch) const;
  /// Sets `group`'s id and size for work-group `linear`; returns its index in LaunchCode::byEdges.
  unsigned describeGroup(size_t linear, WorkGroupParams &group) const;

  /// The code's estimate of a work-group's time, found once per launch.
  std::atomic<uint32_t> *groupTime_ = nullptr;
};

/// How many of a launch of `groups` work-groups of `code` a worker claims at a time: several
/// chunks per worker balance uneven work-groups, not so many that claiming costs; a multiple of
/// the work-groups the code runs in step, as many of those as leave every worker some. A launch
/// whose work-groups together took less than kOneWorkerNanoseconds, by the estimate earlier
/// launches of that code left, runs whole on one worker (the waiting thread, or the one that
/// polls): waking and coordinating others costs more than the work.
size_t launchChunkSize(const LaunchCode &code, size_t groups, unsigned workers);
inline constexpr uint64_t kOneWorkerNanoseconds = 10000;

/// How long `groups` work-groups of `code` take by the estimate earlier launches left; 0 when
/// there is none yet.
uint64_t estimatedNanoseconds(const LaunchCode &code, size_t groups);

/// launchChunkSize for `groups` work-groups estimated to take `nanoseconds` together (0: not
/// known), of code that runs up to `groupsInStep` of them in step.
size_t chunkSizeForTime(uint64_t nanoseconds, uint32_t groupsInStep, size_t groups,
                        unsigned workers);

/// The printf buffer of a launch of `kernel`, of `bufferSize` bytes; none when the kernel does
/// not call printf.
std::optional<PrintfOutput> printfOutputFor(const CpuKernel &kernel, size_t bufferSize);

/// A job whose items are the work-groups of a command's launches: what both kinds of launch
/// job keep, and how they start and complete their command.
class WorkGroupsJob : public ParallelJob {
public:
  const void *waiterTag() const override { return waiterTagOf(*command_); }

protected:
  WorkGroupsJob(std::shared_ptr<Command> command, std::vector<WorkerScratch> &scratch,
                size_t groups, size_t chunkSize)
      : ParallelJob(groups, chunkSize), command_(std::move(command)), scratch_(scratch) {}

  /// Marks the command running on the first call; false once the job has failed.
  bool startRunning() {
    if (!started_.exchange(true))
      command_->markRunning();
    return !failed_.load(std::memory_order_relaxed);
  }
  void fail() { failed_.store(true); }
  /// Completes the command once the kernels its launches enqueued into `arena` (null: none)
  /// have finished.
  void complete(std::unique_ptr<EnqueueArena> arena) {
    completeAfterEnqueuedCommands(command_, std::move(arena),
                                  failed_.load() ? CL_OUT_OF_RESOURCES : CL_COMPLETE);
  }

  std::shared_ptr<Command> command_;
  std::vector<WorkerScratch> &scratch_;

private:
  std::atomic<bool> started_{false};
  std::atomic<bool> failed_{false};
};

/// An NDRange of `groups` work-groups along each dimension: one item per work-group.
class KernelLaunchJob final : public WorkGroupsJob {
public:
  KernelLaunchJob(std::shared_ptr<Command> command, std::vector<WorkerScratch> &scratch,
                  const LaunchCode &code, const std::array<uint64_t, 3> &groups, size_t chunkSize,
                  size_t printfBufferSize);

  void run(size_t begin, size_t end, unsigned worker) override;

  void finished() override;

private:
  KernelLaunch &launch_;
  const CpuKernel &deviceKernel_;
  PreparedLaunch prepared_;
  std::optional<PrintfOutput> printf_;         // for kernels that call printf
  std::unique_ptr<EnqueueArena> enqueueArena_; // for kernels that enqueue kernels
};

} // namespace kiln::cpu
