//===- kernel_launch_job.cpp - An NDRange run by the CPU device's workers --===//
#include "devices/cpu/kernel_launch_job.hpp"

#include "runtime/objects/device.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/work_group_grid.hpp"
#include "support/align_up.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <algorithm>
#include <bit>
#include <chrono>

namespace kiln::cpu {
namespace {

/// Makes the non-temporal stores of the work-groups this thread ran visible to the others
/// before their completion is reported: they are not ordered with later stores.
void fenceStreamingStores() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_sfence();
#endif
}

/// The estimate of a work-group's time that `code`'s usual work-groups (those of the full size),
/// else any of its work-groups, keep; null when none does.
std::atomic<uint32_t> *groupTimeOf(const LaunchCode &code) {
  for (const WorkGroupCode *each : code.byEdges)
    if (each != nullptr && each->recentGroupNanoseconds != nullptr)
      return each->recentGroupNanoseconds;
  return nullptr;
}

} // namespace

static_assert(kStorageReadSlackBytes >= kBufferReadSlackBytes,
              "buffers have the read slack work-group functions may use");

bool LaunchCode::find(const CpuKernel &kernel, const NDRange &range, const WorkGroupShape &common,
                      std::string &error) {
  streamingStores = common.streamingStores;
  for (const WorkGroupKind &kind : workGroupKinds(range)) {
    WorkGroupShape shape = common;
    shape.zeroOffset = true;
    for (unsigned dim = 0; dim < 3; ++dim) {
      shape.enqueuedLocalSize[dim] = range.local[dim];
      shape.localSize[dim] = kind.localSize[dim];
      shape.zeroOffset = shape.zeroOffset && range.offset[dim] == 0;
    }
    const WorkGroupCode *code = kernel.code(shape, error);
    if (code == nullptr)
      return false;
    byEdges[kind.edges] = code;
    groupsInStep = std::max(groupsInStep, code->groupsInStep);
    uint64_t simdGroupsAlongX = (shape.localSize[0] + code->simdWidth - 1) / code->simdWidth;
    privateMemorySize =
        std::max(privateMemorySize, simdGroupsAlongX * shape.localSize[1] * shape.localSize[2] *
                                        code->privateBytesPerSimdGroup);
  }
  return true;
}

bool shouldStreamStores(const HostCpu &host, const LaunchBuffers &buffers) {
  uint64_t cache = host.lastLevelCacheBytes;
  return cache != 0 && buffers.outputBytes > cache / 4 && buffers.bytes > cache;
}

PreparedLaunch::PreparedLaunch(const KernelLaunch &launch, const LaunchCode &launchCode,
                               const std::array<uint64_t, 3> &groups)
    : PreparedLaunch(*launch.deviceKernel, launch.range, launch.arguments.block.data(),
                     launch.arguments.localMemorySize, launchCode, groups) {}

PreparedLaunch::PreparedLaunch(const DeviceKernel &kernel, const NDRange &range,
                               const std::byte *arguments, size_t localMemorySize,
                               const LaunchCode &launchCode, const std::array<uint64_t, 3> &groups)
    : code(launchCode), groupTime_(groupTimeOf(launchCode)) {
  params.args = arguments;
  params.workDim = range.workDim;
  for (int dim = 0; dim < 3; ++dim) {
    params.globalOffset[dim] = range.offset[dim];
    params.globalSize[dim] = range.global[dim];
    params.enqueuedLocalSize[dim] = range.local[dim];
    params.numGroups[dim] = groups[dim];
  }
  params.localMemorySize = localMemorySize;
  // The work-group collectives' scratch follows the launch's local memory, at a multiple of a
  // slot (placeWorkGroupScratch in codegen/work_group/work_group_function.hpp).
  if (cl_ulong scratchSize = kernel.info().workGroupScratchSize)
    localMemoryReserved = (params.localMemorySize + compiler::kWorkGroupScratchSlotBytes - 1) /
                              compiler::kWorkGroupScratchSlotBytes *
                              compiler::kWorkGroupScratchSlotBytes +
                          scratchSize;
  else
    localMemoryReserved = params.localMemorySize;
  params.privateMemorySize = code.privateMemorySize;
}

namespace {

/// The estimate a run of `groups` work-groups in `nanoseconds` leaves: it rises at once (a launch
/// that does more must not stay on one worker) and falls by a quarter of the gap.
void recordGroupTime(std::atomic<uint32_t> &estimate, size_t groups, uint64_t nanoseconds) {
  uint64_t sample = std::min<uint64_t>(nanoseconds / std::max<size_t>(groups, 1), UINT32_MAX);
  uint32_t old = estimate.load(std::memory_order_relaxed);
  uint64_t next = sample >= old ? sample : old - (old - sample) / 4;
  estimate.store(static_cast<uint32_t>(std::max<uint64_t>(next, 1)), std::memory_order_relaxed);
}

/// The estimated time of `groups` work-groups by `estimate` of one (null: none), 0 when unknown.
uint64_t nanosecondsOf(const std::atomic<uint32_t> *estimate, size_t groups) {
  return estimate == nullptr ? 0 : uint64_t{estimate->load(std::memory_order_relaxed)} * groups;
}

} // namespace

size_t chunkSizeForTime(uint64_t nanoseconds, uint32_t groupsInStep, size_t groups,
                        unsigned workers) {
  if (nanoseconds != 0 && nanoseconds < kOneWorkerNanoseconds)
    return groups;
  size_t chunk = std::max<size_t>(1, groups / (size_t{workers} * 4));
  size_t inStep = std::bit_floor(
      std::min<size_t>(groupsInStep, std::max<size_t>(1, groups / std::max(workers, 1u))));
  return (chunk + inStep - 1) / inStep * inStep;
}

uint64_t estimatedNanoseconds(const LaunchCode &code, size_t groups) {
  return nanosecondsOf(groupTimeOf(code), groups);
}

size_t launchChunkSize(const LaunchCode &code, size_t groups, unsigned workers) {
  return chunkSizeForTime(estimatedNanoseconds(code, groups), code.groupsInStep, groups, workers);
}

size_t PreparedLaunch::chunkSize(unsigned workers) const {
  return chunkSizeForTime(nanosecondsOf(groupTime_, groupCount()), code.groupsInStep, groupCount(),
                          workers);
}

bool PreparedLaunch::runGroups(size_t begin, size_t end, WorkerScratch &scratch) const {
  // Reading the clock twice costs as much as a small work-group of a replayed command buffer
  // (more where the clock is a system call): a run of one work-group, which no worker could
  // share anyway, is timed once in kTimedRunInterval per thread. Runs of several, whose one-worker
  // decision rests on the estimate, are always timed, and so is every run until the code has one.
  constexpr unsigned kTimedRunInterval = 64;
  std::atomic<uint32_t> *estimate = groupTime_;
  if (estimate == nullptr || (end - begin < 2 && ++scratch.untimedRuns % kTimedRunInterval != 0 &&
                              estimate->load(std::memory_order_relaxed) != 0))
    return runGroupsUntimed(begin, end, scratch);
  auto start = std::chrono::steady_clock::now();
  bool ran = runGroupsUntimed(begin, end, scratch);
  if (ran)
    recordGroupTime(*estimate, end - begin,
                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  return ran;
}

bool PreparedLaunch::runGroupsUntimed(size_t begin, size_t end, WorkerScratch &scratch) const {
  // Work-groups that take turns run in step, up to groupsInStep at once, each with its own local
  // and private memory; the others one after another in the first of those.
  size_t inStep = std::min<size_t>(code.groupsInStep, end - begin);
  size_t localStride = alignUp(std::max<size_t>(localMemoryReserved, 1), kLocalMemoryAlignment);
  size_t privateStride =
      alignUp(std::max<size_t>(params.privateMemorySize, 1), kLocalMemoryAlignment);
  if (!WorkerScratch::reserve(scratch.localMemory, scratch.localCapacity, localStride * inStep) ||
      !WorkerScratch::reserve(scratch.privateMemory, scratch.privateCapacity,
                              privateStride * inStep))
    return false;
  const ThreadStack &stack = scratch.stack.current();
  struct GroupInStep {
    WorkGroupParams group{};
    const WorkGroupCode *code = nullptr;
    uint32_t turn = 0;
  };
  std::array<GroupInStep, kMaxGroupsInStep> groups;
  for (size_t linear = begin; linear < end;) {
    // Start up to inStep work-groups; one that finishes at once leaves its memory to the next.
    size_t waiting = 0;
    for (; waiting < inStep && linear < end; ++linear) {
      GroupInStep &each = groups[waiting];
      each.group.localMemory = scratch.localMemory.get() + waiting * localStride;
      each.group.privateMemory = scratch.privateMemory.get() + waiting * privateStride;
      each.group.stackBase = stack.base;
      each.group.stackSize = stack.size;
      each.group.turn = &each.turn;
      each.turn = 0;
      each.code = code.byEdges[describeGroup(linear, each.group)];
      each.code->function(&params, &each.group);
      if (each.turn != 0)
        ++waiting;
    }
    // Then their turns, one round after another, until every one has finished.
    while (waiting != 0) {
      size_t still = 0;
      for (size_t index = 0; index < waiting; ++index) {
        GroupInStep &each = groups[index];
        each.code->function(&params, &each.group);
        if (each.turn != 0)
          ++still;
      }
      if (still == waiting)
        continue;
      // Finished ones leave; the rest keep their order (and their memory).
      size_t kept = 0;
      for (size_t index = 0; index < waiting; ++index)
        if (groups[index].turn != 0) {
          if (kept != index) {
            groups[kept] = groups[index];
            groups[kept].group.turn = &groups[kept].turn;
          }
          ++kept;
        }
      waiting = kept;
    }
  }
  if (code.streamingStores)
    fenceStreamingStores();
  return true;
}

unsigned PreparedLaunch::describeGroup(size_t linear, WorkGroupParams &group) const {
  size_t rest = linear;
  unsigned edges = 0;
  for (int dim = 0; dim < 3; ++dim) {
    group.groupId[dim] = rest % params.numGroups[dim];
    rest /= params.numGroups[dim];
    uint64_t first = group.groupId[dim] * params.enqueuedLocalSize[dim];
    group.localSize[dim] = std::min(params.enqueuedLocalSize[dim], params.globalSize[dim] - first);
    if (group.localSize[dim] != params.enqueuedLocalSize[dim])
      edges |= 1u << dim;
  }
  return edges;
}

std::optional<PrintfOutput> printfOutputFor(const CpuKernel &kernel, size_t bufferSize) {
  if (kernel.printfCalls() == nullptr)
    return std::nullopt;
  return std::optional<PrintfOutput>(
      std::in_place,
      allocateAligned(PrintfOutput::storageSize(bufferSize), PrintfOutput::kStorageAlignment),
      bufferSize);
}

KernelLaunchJob::KernelLaunchJob(std::shared_ptr<Command> command,
                                 std::vector<WorkerScratch> &scratch, const LaunchCode &code,
                                 const std::array<uint64_t, 3> &groups, size_t chunkSize,
                                 size_t printfBufferSize)
    : WorkGroupsJob(std::move(command), scratch, groups[0] * groups[1] * groups[2], chunkSize),
      launch_(std::get<KernelLaunch>(command_->payload())),
      deviceKernel_(static_cast<const CpuKernel &>(*launch_.deviceKernel)),
      prepared_(launch_, code, groups), printf_(printfOutputFor(deviceKernel_, printfBufferSize)) {
  if (printf_)
    prepared_.params.printfBuffer = printf_->buffer();
  if (launch_.kernel->info().usesDeviceEnqueue) {
    enqueueArena_ = EnqueueArena::create(launch_, command_->event().queue()->device());
    if (enqueueArena_ == nullptr)
      fail();
    else
      prepared_.params.deviceEnqueueArena = enqueueArena_->arena();
  }
}

void KernelLaunchJob::run(size_t begin, size_t end, unsigned worker) {
  if (startRunning() && !prepared_.runGroups(begin, end, scratch_[worker]))
    fail();
}

void KernelLaunchJob::finished() {
  // The output is flushed when the command completes, as the specification requires.
  if (printf_)
    printf_->write(*deviceKernel_.printfCalls());
  printf_.reset();
  // A kernel's enqueued kernels run once it has finished; its command completes after them.
  complete(std::move(enqueueArena_));
}

} // namespace kiln::cpu
