// cl_event: the execution status of a command (or a user event), its callbacks, its profiling
// times, and the commands waiting for it.
#pragma once

#include "runtime/objects/object.hpp"
#include "runtime/scheduling/block_recycler.hpp"
#include "support/adaptive_mutex.hpp"
#include "support/cache_line.hpp"
#include "support/monotonic_clock.hpp"

#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <vector>

namespace kiln {

class Command;
class Context;
class Queue;

class Event : public Object<_cl_event, ObjectKind::Event>, public RefCounted<Event> {
public:
  KILN_RECYCLED_ALLOCATION()

  using Callback = void(CL_CALLBACK *)(cl_event, cl_int, void *);

  /// The event of a command enqueued on `queue`.
  Event(Queue &queue, cl_command_type type);
  /// A user event (clCreateUserEvent): starts CL_SUBMITTED.
  explicit Event(Context &context);
  ~Event();

  Context &context() const { return *context_; }
  Queue *queue() const { return queue_.get(); }
  cl_command_type commandType() const { return type_; }
  bool isUserEvent() const { return type_ == CL_COMMAND_USER; }
  /// Lock-free: waiters poll it.
  cl_int status() const { return status_.load(std::memory_order_acquire); }

  /// True once the status is CL_COMPLETE or an error.
  bool isFinished() const { return status() <= CL_COMPLETE; }

  /// Moves the status forward (CL_SUBMITTED, CL_RUNNING, CL_COMPLETE or a negative error code):
  /// records the profiling time, runs callbacks, wakes waiters and tells dependent commands.
  /// A status that is not later than the current one is ignored.
  void setStatus(cl_int status);

  /// clSetUserEventStatus: false when the status was already set.
  bool setUserStatus(cl_int status);

  /// Whether the application has callbacks registered that have not run yet.
  bool hasCallbacks() const;

  /// Waits until the event finishes (polling for a short while, then blocking); returns its
  /// final status.
  cl_int wait() const;

  /// Has `command` told (Command::dependencyFinished) when this event finishes. Returns false,
  /// without registering, when it has already finished.
  bool addDependent(const std::shared_ptr<Command> &command, bool propagatesErrors);

  /// Has `command` told (Command::dependencyFinished with CL_COMPLETE) once this event's command
  /// has been handed to its device, or has finished, whichever comes first: how the next
  /// command of an in-order queue follows its predecessor on a device that keeps submission
  /// order. Returns false, without registering, when that has happened already.
  bool addSubmissionDependent(const std::shared_ptr<Command> &command);

  /// For Command: its driver has it. Returns the commands waiting for that (once).
  std::vector<std::shared_ptr<Command>> takeSubmissionDependents();

  /// For drivers that time commands on the device: the start and end of execution on the
  /// host's clock (monotonicNanoseconds), which CL_PROFILING_COMMAND_START and _END report
  /// instead of the times the status changed. Call before completing the command.
  void setDeviceExecutionTimes(cl_ulong start, cl_ulong end);

  /// clSetEventCallback. Runs the callback at once when the status was already reached.
  void addCallback(cl_int callbackType, Callback callback, void *userData);

  /// Profiling: which of CL_PROFILING_COMMAND_{QUEUED,SUBMIT,START,END,COMPLETE}.
  bool profilingEnabled() const { return profiling_; }
  cl_ulong profilingTime(cl_profiling_info point) const;

private:
  friend class EventFifo;

  struct Dependent {
    std::shared_ptr<Command> command;
    bool propagatesErrors;
  };
  struct PendingCallback {
    cl_int type;
    Callback callback;
    void *userData;
  };

  /// Profiling: the times of the points from `previous` (exclusive) to `status`.
  void recordTimes(cl_int previous, cl_int status);
  /// Profiling: START and END from the device's own times, placed within SUBMIT and `now`.
  void placeDeviceTimes(cl_ulong now);
  /// Moves the callbacks that `status` reaches into `due` (under mutex_).
  void takeCallbacksReached(cl_int status, std::vector<PendingCallback> &due);

  Ref<Context> context_;
  Ref<Queue> queue_;
  cl_command_type type_;
  bool profiling_ = false;

  mutable AdaptiveMutex mutex_;
  mutable std::condition_variable finished_; // waits on mutex_.underlying()
  bool userStatusSet_ = false;
  using DependentList = std::vector<Dependent, RecyclingAllocator<Dependent>>;
  DependentList dependents_;
  std::vector<PendingCallback> callbacks_;
  std::vector<std::shared_ptr<Command>> submissionDependents_;
  bool handedToDevice_ = false;
  /// Where the queue's EventFifo holds this event while its command is unfinished.
  size_t fifoSlot_ = 0;
  std::array<cl_ulong, 5> times_{};       // queued, submit, start, end, complete
  std::array<cl_ulong, 2> deviceTimes_{}; // start, end; zero when the device gave none
  /// Written under mutex_, read by anyone: by a waiting thread over and over (Event::wait). On
  /// a line of its own, so that the completing thread's lock, times and lists do not take it
  /// from the waiter one write at a time; only the status change does.
  alignas(kNoFalseSharing) std::atomic<cl_int> status_;
};

} // namespace kiln
