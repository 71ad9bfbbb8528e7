// cl_command_queue: orders the commands enqueued on one device.
#pragma once

#include "runtime/objects/event_fifo.hpp"
#include "runtime/objects/object.hpp"
#include "support/adaptive_mutex.hpp"

#include <memory>
#include <span>
#include <vector>

namespace kiln {

class Command;
class Context;
class Device;
class Event;

class Queue : public Object<_cl_command_queue, ObjectKind::Queue>, public RefCounted<Queue> {
public:
  Queue(Context &context, Device &device, cl_command_queue_properties properties,
        std::vector<cl_queue_properties> propertyList);
  ~Queue();

  Context &context() const { return *context_; }
  Device &device() const { return device_; }
  cl_command_queue_properties properties() const { return properties_; }
  const std::vector<cl_queue_properties> &propertyList() const { return propertyList_; }
  bool isInOrder() const { return !(properties_ & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); }
  bool profilingEnabled() const { return properties_ & CL_QUEUE_PROFILING_ENABLE; }
  /// A device queue (CL_QUEUE_ON_DEVICE): only kernels enqueue on it.
  bool isOnDevice() const { return properties_ & CL_QUEUE_ON_DEVICE; }
  /// CL_QUEUE_SIZE of a device queue: the bytes its kernels' enqueues may take at a time.
  cl_uint deviceQueueSize() const { return deviceQueueSize_; }

  /// Enqueues `command` (whose event belongs to this queue): it runs once every event of
  /// `waitList` has finished and, in an in-order queue, the previous command has; in an
  /// out-of-order queue, once the latest barrier has. A wait-list event that failed fails the
  /// command without running it.
  void enqueue(const std::shared_ptr<Command> &command, std::span<Event *const> waitList);

  /// A marker without a wait list: `command` also waits for every command enqueued before it.
  void enqueueMarker(const std::shared_ptr<Command> &command, std::span<Event *const> waitList);

  /// A barrier: like a marker, and every command enqueued later waits for it too.
  void enqueueBarrier(const std::shared_ptr<Command> &command, std::span<Event *const> waitList);

  /// Blocks until every command enqueued so far has finished.
  void finish();

  /// Commands are handed to the device as soon as they are ready, so a flush has nothing to do.
  void flush() {}

  /// Called by an event of this queue when it finishes.
  void commandFinished(Event &event);

private:
  enum class Ordering { Normal, AfterAll, Barrier };
  void wire(const std::shared_ptr<Command> &command, std::span<Event *const> waitList,
            Ordering ordering);

  Ref<Context> context_;
  Device &device_;
  cl_command_queue_properties properties_;
  std::vector<cl_queue_properties> propertyList_;
  cl_uint deviceQueueSize_ = 0;

  AdaptiveMutex mutex_;
  EventFifo unfinished_;   // enqueued and not yet finished, oldest first
  Ref<Event> lastBarrier_; // out-of-order: what later commands wait for
  bool newestFinishesAfterItsWork_ = false;
};

} // namespace kiln
