#include "runtime/scheduling/command_buffer_replay.hpp"

#include "runtime/device_driver.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/queue.hpp"

namespace kiln {
namespace {

/// Makes `next` wait for `previous`: for its completion, or, on a device that runs a queue's
/// commands in the order it receives them, only for its submission (so that the device can
/// queue them back to back, as an in-order queue does). Uses `next`'s initial hold.
void chain(Command &previous, const std::shared_ptr<Command> &next, bool bySubmission) {
  if (bySubmission && !finishesAfterItsWork(previous.payload())) {
    if (!previous.event().addSubmissionDependent(next))
      next->dependencyFinished(CL_COMPLETE, false);
    return;
  }
  if (!previous.event().addDependent(next, true))
    next->dependencyFinished(previous.event().status(), true);
}

} // namespace

const PreparedSequence *RecordedCommands::preparedFor(DeviceDriver &driver) const {
  std::call_once(prepareOnce_, [&] { prepared_ = driver.prepareSequence(*this); });
  return prepared_.get();
}

void startReplay(const std::shared_ptr<Command> &parent) {
  auto &run = std::get<RunCommandBuffer>(parent->payload());
  std::shared_ptr<const RecordedCommands> recorded = std::move(run.commands);
  // What remains of the parent is to complete through its driver, like a marker.
  parent->payload() = NoOperation{};
  parent->markRunning();
  Queue &queue = *parent->event().queue();
  DeviceDriver &driver = queue.device().driver();

  if (const PreparedSequence *prepared = recorded->preparedFor(driver)) {
    driver.submitPrepared(parent, recorded, *prepared);
    return;
  }

  std::vector<std::shared_ptr<Command>> steps;
  steps.reserve(recorded->commands.size());
  for (const RecordedCommand &recordedCommand : recorded->commands)
    steps.push_back(Command::makeInternal(queue, recordedCommand.type, recordedCommand.payload));
  bool bySubmission = driver.keepsSubmissionOrder();
  parent->addPendingDependency();
  if (steps.empty()) {
    parent->dependencyFinished(CL_COMPLETE, false);
    return;
  }
  for (size_t index = 1; index < steps.size(); ++index)
    chain(*steps[index - 1], steps[index], bySubmission);
  // On a device that keeps submission order the last step completes after all the others.
  if (!steps.back()->event().addDependent(parent, true))
    parent->dependencyFinished(steps.back()->event().status(), true);
  steps.front()->dependencyFinished(CL_COMPLETE, false);
}

} // namespace kiln
