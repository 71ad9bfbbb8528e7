// A GPU's streams as lanes: commands submitted to the stream their order asks for, put on it
// from the submitting thread where they may be, and completed in submission order by the
// stream's command thread, which also starts the commands that must wait for those ahead.
#include "devices/cuda/cuda_driver_class.hpp"

#include "devices/cuda/cuda_graph.hpp"
#include "devices/cuda/current_context.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"
#include "runtime/scheduling/host_commands.hpp"
#include "runtime/scheduling/image_writes.hpp"

#include <utility>
#include <variant>
#include <vector>

namespace kiln::cuda {
namespace {

/// The commands whose order a stream must keep: those of one in-order queue.
const void *orderKeyOf(const Command &command) {
  const Queue *queue = command.event().queue();
  return queue != nullptr && queue->isInOrder() ? queue : nullptr;
}

} // namespace

void CudaDriver::submit(std::shared_ptr<Command> command) {
  std::shared_ptr<Command> started = command;
  // Outside the lane's lock: the status change runs the application's callbacks, which may
  // enqueue. (When the command has completed already, the status stays complete.)
  if (putOnLane({.command = std::move(command)}))
    started->markRunning();
}

bool CudaDriver::putOnLane(CommandThread::Item item) {
  StreamAssignment::Choice choice = streams_.assign(orderKeyOf(*item.command));
  Lane &lane = *lanes_[choice.stream];
  std::lock_guard order(lane.orderMutex);
  bool fromHere = item.graph != nullptr || startsFromAnyThread(item.command->payload());
  // With many commands unfinished, the GPU has work queued for a while: the lane's starter puts
  // the next ones on the stream, while the application's thread goes on enqueueing. Each CUDA
  // launch costs the host a few microseconds; one thread enqueueing and launching both was the
  // bound on an application streaming small kernels. Once the starter has commands, all go to it
  // until it has caught up, so that none overtakes another.
  bool gpuBusy = lane.stream != nullptr && lane.threadStartsAhead == 0 &&
                 choice.unfinished > kUnfinishedBeforeStarter && startsAhead(item);
  if (lane.starterAhead > 0 || gpuBusy) {
    ++lane.starterAhead;
    lane.starter->submit(std::move(item));
    return false;
  }
  if (lane.stream == nullptr || lane.threadStartsAhead > 0 || !fromHere) {
    ++lane.threadStartsAhead;
    lane.commands->submit(std::move(item));
    return false;
  }
  CurrentContext current(*cuda_, context_);
  lane.commands->submit(startOnStream(lane, std::move(item)));
  return true;
}

CommandThread::Item CudaDriver::startOnStream(Lane &lane, CommandThread::Item item) {
  item.state = CommandThread::Item::State::Started;
  cl_int status = CL_OUT_OF_RESOURCES;
  if (item.command->event().profilingEnabled()) {
    // Timed: events right around the command.
    item.start = events_.acquire(true);
    item.end = events_.acquire(true);
    if (item.start != nullptr && item.end != nullptr &&
        cuda_->eventRecord(item.start, lane.stream) == CUDA_SUCCESS) {
      status = enqueue(item, lane.stream);
      if (status == CL_COMPLETE && cuda_->eventRecord(item.end, lane.stream) != CUDA_SUCCESS)
        status = CL_OUT_OF_RESOURCES;
    }
  } else {
    // The command thread records the event that tells its end (completeTogether()): the
    // submitting thread, which paces back-to-back launches, makes one driver call.
    status = enqueue(item, lane.stream);
  }
  if (status != CL_COMPLETE) {
    releaseEvents(item);
    item.state = CommandThread::Item::State::Failed;
    item.failure = status;
  }
  return item;
}

cl_int CudaDriver::enqueue(CommandThread::Item &item, CUstream stream) {
  // The commands this stream runs next see the images this one writes as changed.
  if (item.graph == nullptr) {
    markWrittenImages(item.command->payload());
    moveUsedMemoryToDevice(item.command->payload(), stream);
    return enqueueOnStream(item.command->payload(), stream);
  }
  for (const RecordedCommand &recorded : item.recording->commands) {
    markWrittenImages(recorded.payload);
    moveUsedMemoryToDevice(recorded.payload, stream);
  }
  return item.graph->launch(stream) ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
}

bool CudaDriver::startsAhead(const CommandThread::Item &item) {
  return item.graph == nullptr && !item.command->event().profilingEnabled() &&
         startsFromAnyThread(item.command->payload());
}

void CudaDriver::startAhead(Lane &lane, std::vector<CommandThread::Item> &batch) {
  CurrentContext current(*cuda_, context_);
  for (CommandThread::Item &item : batch) {
    bool starts = startsAhead(item);
    if (starts) {
      item.command->markRunning();
      item = startOnStream(lane, std::move(item));
    }
    std::lock_guard order(lane.orderMutex);
    if (!starts)
      ++lane.threadStartsAhead; // the command thread starts it, after those before it
    lane.commands->submit(std::move(item));
    --lane.starterAhead;
  }
}

void CudaDriver::finish(Lane &lane, std::vector<CommandThread::Item> &batch) {
  CurrentContext current(*cuda_, context_);
  // Started commands without events of their own are completed together, by one event
  // recorded behind the last of them.
  std::vector<CommandThread::Item *> unmarked;
  for (CommandThread::Item &item : batch) {
    if (item.state == CommandThread::Item::State::Started && item.end == nullptr) {
      unmarked.push_back(&item);
      continue;
    }
    completeTogether(lane, unmarked);
    finish(lane, item);
  }
  completeTogether(lane, unmarked);
}

void CudaDriver::completeTogether(Lane &lane, std::vector<CommandThread::Item *> &items) {
  if (items.empty())
    return;
  CUevent end = events_.acquire(false);
  bool recorded = end != nullptr && cuda_->eventRecord(end, lane.stream) == CUDA_SUCCESS;
  bool done = recorded ? cuda_->eventSynchronize(end) == CUDA_SUCCESS : synchronize(lane.stream);
  events_.release(end, false);
  for (CommandThread::Item *item : items)
    completeCommand(lane, *item->command, done ? CL_COMPLETE : CL_OUT_OF_RESOURCES);
  items.clear();
}

void CudaDriver::completeCommand(Lane &lane, Command &command, cl_int status) {
  streams_.finished(lane.index, orderKeyOf(command));
  command.complete(status);
}

void CudaDriver::completeCommand(Lane &lane, CommandThread::Item &item, cl_int status) {
  if (item.enqueueArena == nullptr) {
    completeCommand(lane, *item.command, status);
    return;
  }
  // The launch's work on the stream is done; its command completes after its children.
  streams_.finished(lane.index, orderKeyOf(*item.command));
  completeAfterEnqueuedCommands(item.command, std::move(item.enqueueArena), status);
}

void CudaDriver::finish(Lane &lane, CommandThread::Item &item) {
  switch (item.state) {
  case CommandThread::Item::State::Failed:
    completeCommand(lane, *item.command, item.failure);
    return;
  case CommandThread::Item::State::Started:
    complete(lane, item);
    return;
  case CommandThread::Item::State::ToStart:
    break;
  }
  cl_int status = lane.stream != nullptr ? startHere(lane, item) : CL_OUT_OF_RESOURCES;
  {
    std::lock_guard order(lane.orderMutex);
    --lane.threadStartsAhead;
  }
  if (item.state == CommandThread::Item::State::Started)
    complete(lane, item);
  else
    completeCommand(lane, item, status);
}

void CudaDriver::complete(Lane &lane, CommandThread::Item &item) {
  if (item.end == nullptr) {
    std::vector<CommandThread::Item *> alone{&item};
    completeTogether(lane, alone);
    return;
  }
  cl_int status =
      cuda_->eventSynchronize(item.end) == CUDA_SUCCESS ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
  if (status == CL_COMPLETE && item.start != nullptr) {
    std::lock_guard clockUse(clockMutex_);
    cl_ulong start = clock_.hostTime(item.start), end = clock_.hostTime(item.end);
    if (start != 0 && end != 0)
      item.command->event().setDeviceExecutionTimes(start, end);
  }
  releaseEvents(item);
  completeCommand(lane, *item.command, status);
}

void CudaDriver::releaseEvents(CommandThread::Item &item) {
  bool timed = item.command->event().profilingEnabled();
  events_.release(std::exchange(item.start, nullptr), true);
  events_.release(std::exchange(item.end, nullptr), timed);
}

cl_int CudaDriver::startHere(Lane &lane, CommandThread::Item &item) {
  item.command->markRunning();
  if (item.graph != nullptr) {
    item = startOnStream(lane, std::move(item));
    return item.failure;
  }
  CommandPayload &payload = item.command->payload();
  if (auto *launch = std::get_if<KernelLaunch>(&payload);
      launch != nullptr && needsHostAfterwards(*launch))
    return runAndFollowUp(item, lane.stream);
  if (runsOnStream(payload)) {
    item = startOnStream(lane, std::move(item));
    return item.failure;
  }
  moveForHost(payload, lane.stream);
  if (!synchronize(lane.stream))
    return CL_OUT_OF_RESOURCES;
  // Everything else works on the memory as the host sees it.
  cl_int status = executeHostCommand(payload);
  noteHostAccess(payload);
  return status;
}

bool CudaDriver::synchronize(CUstream stream) {
  return cuda_->streamSynchronize(stream) == CUDA_SUCCESS;
}

} // namespace kiln::cuda
