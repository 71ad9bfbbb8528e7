//===- child_launches_job.cpp - Kernels that kernels enqueued, as one job ---===//
#include "devices/cpu/child_launches_job.hpp"

#include "runtime/objects/device.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/queue.hpp"

#include <algorithm>

namespace kiln::cpu {

namespace {

size_t groupsOf(const ChildLaunch &child) {
  return child.groups[0] * child.groups[1] * child.groups[2];
}

size_t groupsOf(const std::vector<ChildLaunch> &children) {
  size_t groups = 0;
  for (const ChildLaunch &child : children)
    groups += groupsOf(child);
  return groups;
}

} // namespace

size_t childLaunchesChunkSize(const std::vector<ChildLaunch> &children, unsigned workers) {
  uint64_t nanoseconds = 0;
  for (const ChildLaunch &child : children) {
    uint64_t each = estimatedNanoseconds(child.code, groupsOf(child));
    if (each == 0) {
      nanoseconds = 0; // one launch not known: the whole is not
      break;
    }
    nanoseconds += each;
  }
  // Chunks cross from one launch to the next, so no count of groups in step fits them all.
  return chunkSizeForTime(nanoseconds, 1, groupsOf(children), workers);
}

ChildLaunchesJob::ChildLaunchesJob(std::shared_ptr<Command> command,
                                   std::vector<WorkerScratch> &scratch,
                                   const std::vector<ChildLaunch> &children, size_t chunkSize,
                                   size_t printfBufferSize)
    : WorkGroupsJob(std::move(command), scratch, groupsOf(children), chunkSize) {
  const auto &batch = std::get<ChildLaunches>(command_->payload());
  size_t enqueuing = 0;
  for (const ChildLaunch &each : children)
    if (each.child->kernel->info().usesDeviceEnqueue)
      ++enqueuing;
  if (enqueuing != 0) {
    enqueueArena_ =
        EnqueueArena::forTree(batch.tree, command_->event().queue()->device(), enqueuing);
    if (enqueueArena_ == nullptr)
      fail();
  }
  prepared_.reserve(children.size());
  ends_.reserve(children.size());
  printf_.resize(children.size());
  printfCalls_.resize(children.size());
  size_t end = 0;
  for (size_t index = 0; index < children.size(); ++index) {
    const ChildLaunches::Child &child = *children[index].child;
    const auto &kernel = static_cast<const CpuKernel &>(*child.deviceKernel);
    PreparedLaunch &prepared =
        prepared_.emplace_back(kernel, child.range, batch.argumentsOf(child), child.localMemorySize,
                               children[index].code, children[index].groups);
    end += prepared.groupCount();
    ends_.push_back(end);
    printf_[index] = printfOutputFor(kernel, printfBufferSize);
    if (printf_[index]) {
      prepared.params.printfBuffer = printf_[index]->buffer();
      printfCalls_[index] = kernel.printfCalls();
    }
    if (child.kernel->info().usesDeviceEnqueue && enqueueArena_ != nullptr)
      prepared.params.deviceEnqueueArena = enqueueArena_->arena();
  }
}

void ChildLaunchesJob::run(size_t begin, size_t end, unsigned worker) {
  if (!startRunning())
    return;
  auto part = std::upper_bound(ends_.begin(), ends_.end(), begin) - ends_.begin();
  for (; begin < end; ++part) {
    size_t first = part == 0 ? 0 : ends_[part - 1];
    size_t stop = std::min(end, ends_[part]);
    if (!prepared_[part].runGroups(begin - first, stop - first, scratch_[worker])) {
      fail();
      return;
    }
    begin = stop;
  }
}

void ChildLaunchesJob::finished() {
  for (size_t index = 0; index < printf_.size(); ++index)
    if (printf_[index])
      printf_[index]->write(*printfCalls_[index]);
  printf_.clear();
  complete(std::move(enqueueArena_));
}

} // namespace kiln::cpu
