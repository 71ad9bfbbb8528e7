#include "runtime/objects/queue.hpp"

#include "runtime/device_driver.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/scheduling/command.hpp"

#include <span>

namespace kiln {

Queue::Queue(Context &context, Device &device, cl_command_queue_properties properties,
             std::vector<cl_queue_properties> propertyList)
    : context_(&context), device_(device), properties_(properties),
      propertyList_(std::move(propertyList)) {
  if (!isOnDevice())
    return;
  deviceQueueSize_ = device.info().queueOnDevicePreferredSize;
  for (size_t i = 0; i + 1 < propertyList_.size(); i += 2)
    if (propertyList_[i] == CL_QUEUE_SIZE)
      deviceQueueSize_ = static_cast<cl_uint>(propertyList_[i + 1]);
  context.deviceQueues().add(*this, properties & CL_QUEUE_ON_DEVICE_DEFAULT);
}

Queue::~Queue() {
  if (isOnDevice())
    context_->deviceQueues().remove(*this);
}

void Queue::enqueue(const std::shared_ptr<Command> &command, std::span<Event *const> waitList) {
  wire(command, waitList, Ordering::Normal);
}

void Queue::enqueueMarker(const std::shared_ptr<Command> &command,
                          std::span<Event *const> waitList) {
  wire(command, waitList, Ordering::AfterAll);
}

void Queue::enqueueBarrier(const std::shared_ptr<Command> &command,
                           std::span<Event *const> waitList) {
  wire(command, waitList, Ordering::Barrier);
}

void Queue::wire(const std::shared_ptr<Command> &command, std::span<Event *const> waitList,
                 Ordering ordering) {
  auto dependOn = [&](Event &event, bool propagatesErrors) {
    command->addPendingDependency();
    if (!event.addDependent(command, propagatesErrors))
      command->dependencyFinished(event.status(), propagatesErrors);
  };
  // On a device that keeps submission order, the in-order predecessor need only be submitted.
  auto followSubmission = [&](Event &event) {
    command->addPendingDependency();
    if (!event.addSubmissionDependent(command))
      command->dependencyFinished(CL_COMPLETE, false);
  };
  for (Event *event : waitList)
    dependOn(*event, /*propagatesErrors=*/true);
  {
    std::lock_guard lock(mutex_);
    // Ordering dependencies only order: a failed predecessor does not fail this command.
    if (isInOrder()) {
      if (!unfinished_.empty() && device_.driver().keepsSubmissionOrder() &&
          !newestFinishesAfterItsWork_)
        followSubmission(*unfinished_.newest());
      else if (!unfinished_.empty())
        dependOn(*unfinished_.newest(), false);
    } else if (ordering != Ordering::Normal && waitList.empty()) {
      // Without a wait list, markers and barriers wait for everything enqueued before them.
      unfinished_.forEach([&](const Ref<Event> &event) { dependOn(*event, false); });
    } else if (lastBarrier_) {
      dependOn(*lastBarrier_, false);
    }
    if (ordering == Ordering::Barrier)
      lastBarrier_ = Ref<Event>(&command->event());
    unfinished_.push(Ref<Event>(&command->event()));
    newestFinishesAfterItsWork_ = finishesAfterItsWork(command->payload());
  }
  // Release the enqueue's own hold: submits the command if nothing else is pending.
  command->dependencyFinished(CL_COMPLETE, false);
}

void Queue::finish() {
  if (isInOrder() && !device_.driver().keepsSubmissionOrder()) {
    // Each command starts only after the one before it has finished (Event::setStatus marks an
    // event finished before it tells its dependents), so the newest finishes last. (On a
    // device that keeps submission order, a command whose wait list failed finishes early.)
    Ref<Event> newest;
    {
      std::lock_guard lock(mutex_);
      if (unfinished_.empty())
        return;
      newest = unfinished_.newest();
    }
    newest->wait();
    return;
  }
  std::vector<Ref<Event>> pending;
  {
    std::lock_guard lock(mutex_);
    unfinished_.forEach([&](const Ref<Event> &event) { pending.push_back(event); });
  }
  for (const Ref<Event> &event : pending)
    event->wait();
}

void Queue::commandFinished(Event &event) {
  Ref<Event> last; // dropped after the lock: it may be the last reference to the queue
  std::lock_guard lock(mutex_);
  last = unfinished_.remove(event);
  if (lastBarrier_.get() == &event)
    lastBarrier_ = nullptr;
}

} // namespace kiln
