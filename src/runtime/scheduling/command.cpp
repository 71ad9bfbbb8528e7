#include "runtime/scheduling/command.hpp"

#include "runtime/objects/device.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"
#include "runtime/scheduling/image_writes.hpp"

namespace kiln {

bool finishesAfterItsWork(const CommandPayload &payload) {
  if (std::holds_alternative<RunCommandBuffer>(payload) ||
      std::holds_alternative<ChildLaunches>(payload))
    return true;
  auto *launch = std::get_if<KernelLaunch>(&payload);
  return launch != nullptr && launch->kernel->info().usesDeviceEnqueue;
}

std::shared_ptr<Command> Command::makeInternal(Queue &queue, cl_command_type type,
                                               CommandPayload payload) {
  Event *event = createObject<Event>(queue, type);
  Ref<Event> held(event);
  event->releaseExternal();
  return make(std::move(held), std::move(payload));
}

void Command::dependencyFinished(cl_int status, bool propagatesErrors) {
  if (releaseDependency(status, propagatesErrors))
    submit();
}

bool Command::releaseDependency(cl_int status, bool propagatesErrors) {
  if (status < 0 && propagatesErrors)
    dependencyFailed_.store(true, std::memory_order_relaxed);
  return pending_.fetch_sub(1, std::memory_order_acq_rel) == 1;
}

void Command::submit() {
  std::vector<std::shared_ptr<Command>> ready = submitOne();
  while (!ready.empty()) {
    std::shared_ptr<Command> next = std::move(ready.back());
    ready.pop_back();
    for (std::shared_ptr<Command> &more : next->submitOne())
      ready.push_back(std::move(more));
  }
}

std::vector<std::shared_ptr<Command>> Command::submitOne() {
  if (dependencyFailed_.load(std::memory_order_relaxed)) {
    // The specification's answer for a command whose wait list failed: it never runs. Its
    // completion releases the commands that follow it.
    complete(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    return {};
  }
  event_->setStatus(CL_SUBMITTED);
  // The event outlives the driver's hold on this command (which may complete it at once).
  Ref<Event> event = event_;
  if (std::holds_alternative<RunCommandBuffer>(payload_)) {
    // A device may run the commands in a form of its own, which completes no command of theirs.
    markWrittenImages(payload_);
    startReplay(shared_from_this());
  } else {
    event->queue()->device().driver().submit(shared_from_this());
  }
  std::vector<std::shared_ptr<Command>> ready;
  for (std::shared_ptr<Command> &successor : event->takeSubmissionDependents())
    if (successor->releaseDependency(CL_COMPLETE, false))
      ready.push_back(std::move(successor));
  return ready;
}

void Command::complete(cl_int status) {
  // Before the commands that wait for this one can start.
  markWrittenImages(payload_);
  event_->setStatus(status);
  // Only now may the objects the command used be destroyed (the specification deletes a
  // released object once the commands using it have finished).
  payload_ = NoOperation{};
}

} // namespace kiln
