#include "runtime/objects/event.hpp"

#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/command.hpp"
#include "support/spin_wait.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace kiln {

namespace {

/// Index into the profiling times for a status reached.
int timeIndexForStatus(cl_int status) {
  switch (status) {
  case CL_QUEUED:
    return 0;
  case CL_SUBMITTED:
    return 1;
  case CL_RUNNING:
    return 2;
  default:
    return 3; // CL_COMPLETE or an error: the end
  }
}

} // namespace

Event::Event(Queue &queue, cl_command_type type)
    : context_(&queue.context()), queue_(&queue), type_(type), profiling_(queue.profilingEnabled()),
      status_(CL_QUEUED) {
  if (profiling_)
    times_[0] = monotonicNanoseconds();
}

Event::Event(Context &context)
    : context_(&context), type_(CL_COMMAND_USER), status_(CL_SUBMITTED) {}

Event::~Event() = default;

void Event::setStatus(cl_int status) {
  // Keep this event alive while callbacks run: one of them may release it.
  Ref<Event> self(this);
  DependentList dependents;
  std::vector<std::shared_ptr<Command>> submissionDependents;
  std::vector<PendingCallback> dueCallbacks;
  {
    std::lock_guard lock(mutex_);
    cl_int current = status_.load(std::memory_order_relaxed);
    bool isLater = status < current && current > CL_COMPLETE;
    if (!isLater)
      return;
    if (profiling_)
      recordTimes(current, status);
    status_.store(status, std::memory_order_release);
    if (status <= CL_COMPLETE) {
      dependents.swap(dependents_);
      submissionDependents.swap(submissionDependents_);
      handedToDevice_ = true;
      finished_.notify_all();
    }
    takeCallbacksReached(status, dueCallbacks);
  }
  for (const PendingCallback &pending : dueCallbacks)
    pending.callback(this, status < 0 ? status : pending.type, pending.userData);
  if (status <= CL_COMPLETE) {
    for (Dependent &dependent : dependents)
      dependent.command->dependencyFinished(status, dependent.propagatesErrors);
    for (const std::shared_ptr<Command> &command : submissionDependents)
      command->dependencyFinished(CL_COMPLETE, false);
    if (queue_)
      queue_->commandFinished(*this);
  }
}

void Event::recordTimes(cl_int previous, cl_int status) {
  cl_ulong now = monotonicNanoseconds();
  // Statuses may be skipped (a command can go straight from queued to complete): give the
  // skipped profiling points the same time so they stay ordered.
  for (int index = timeIndexForStatus(previous) + 1; index <= timeIndexForStatus(status); ++index)
    times_[index] = now;
  if (status > CL_COMPLETE)
    return;
  times_[4] = now;
  if (deviceTimes_[1] != 0)
    placeDeviceTimes(now);
}

void Event::placeDeviceTimes(cl_ulong now) {
  // The device measures how long its command ran exactly, but where that lies on the host's
  // clock only as exactly as the clocks' mapping (a mapping that errs late by more than the
  // host's wait put a short kernel's start and end both at COMPLETE, and its duration at 0).
  // Keep the duration and move it inside what the host saw: after SUBMIT, before COMPLETE.
  cl_ulong submitted = times_[1];
  cl_ulong measured = deviceTimes_[1] > deviceTimes_[0] ? deviceTimes_[1] - deviceTimes_[0] : 0;
  cl_ulong duration = std::min(measured, now - submitted);
  times_[2] = std::clamp(deviceTimes_[0], submitted, now - duration);
  times_[3] = times_[2] + duration;
}

void Event::takeCallbacksReached(cl_int status, std::vector<PendingCallback> &due) {
  // Callback types are CL_SUBMITTED (2), CL_RUNNING (1) and CL_COMPLETE (0): a status reaches
  // every type at or above it; an error reaches all of them.
  std::erase_if(callbacks_, [&](const PendingCallback &pending) {
    if (pending.type < status)
      return false;
    due.push_back(pending);
    return true;
  });
}

bool Event::setUserStatus(cl_int status) {
  {
    std::lock_guard lock(mutex_);
    if (userStatusSet_)
      return false;
    userStatusSet_ = true;
  }
  setStatus(status);
  return true;
}

bool Event::hasCallbacks() const {
  std::lock_guard lock(mutex_);
  return !callbacks_.empty();
}

cl_int Event::wait() const {
  auto finished = [&] { return isFinished(); };
  std::chrono::microseconds pollTime{};
  if (queue_) {
    DeviceDriver &driver = queue_->device().driver();
    pollTime = driver.hostWaitPollTime();
    // The device may hand this thread the ready work of the queue (the command waited for, or
    // the ones before it) instead of waking another core for it. Once, before polling: what
    // becomes ready later is submitted by the thread that completes its predecessor, which then
    // goes on to it as a waiting thread would.
    if (!isFinished())
      driver.runReadyWorkWhileWaiting(*this);
  }
  if (!spinUntil(finished) && !(pollTime.count() > 0 && yieldUntil(finished, pollTime))) {
    std::unique_lock lock(mutex_.underlying());
    finished_.wait(lock, [&] { return isFinished(); });
  }
  return status();
}

bool Event::addDependent(const std::shared_ptr<Command> &command, bool propagatesErrors) {
  std::lock_guard lock(mutex_);
  if (isFinished())
    return false;
  dependents_.push_back({command, propagatesErrors});
  return true;
}

bool Event::addSubmissionDependent(const std::shared_ptr<Command> &command) {
  std::lock_guard lock(mutex_);
  if (handedToDevice_)
    return false;
  submissionDependents_.push_back(command);
  return true;
}

std::vector<std::shared_ptr<Command>> Event::takeSubmissionDependents() {
  std::lock_guard lock(mutex_);
  handedToDevice_ = true;
  return std::exchange(submissionDependents_, {});
}

void Event::setDeviceExecutionTimes(cl_ulong start, cl_ulong end) {
  std::lock_guard lock(mutex_);
  deviceTimes_ = {start, end};
}

void Event::addCallback(cl_int callbackType, Callback callback, void *userData) {
  cl_int current;
  {
    std::lock_guard lock(mutex_);
    current = status();
    if (current > callbackType) {
      callbacks_.push_back({callbackType, callback, userData});
      return;
    }
  }
  callback(this, current < 0 ? current : callbackType, userData);
}

cl_ulong Event::profilingTime(cl_profiling_info point) const {
  std::lock_guard lock(mutex_);
  return times_[point - CL_PROFILING_COMMAND_QUEUED];
}

} // namespace kiln
