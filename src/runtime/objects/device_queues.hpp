// The device queues (CL_QUEUE_ON_DEVICE) of one context, and each device's default one. A kernel
// names a device queue by its handle (a queue_t argument, get_default_queue()); the runtime finds
// the queue again here, and never follows a handle that is not one of them.
#pragma once

#include "runtime/objects/object.hpp"

#include <cstdint>
#include <mutex>
#include <vector>

namespace kiln {

class Device;
class Queue;

class DeviceQueues {
public:
  /// A queue made with CL_QUEUE_ON_DEVICE; with CL_QUEUE_ON_DEVICE_DEFAULT it becomes its
  /// device's default unless the device has one.
  void add(Queue &queue, bool makeDefault);
  /// The queue is going away.
  void remove(Queue &queue);
  /// The queue whose handle is `handle`, or null.
  Ref<Queue> find(uint64_t handle) const;
  /// clSetDefaultDeviceCommandQueue.
  void setDefault(const Device &device, Queue &queue);
  /// The default device queue of `device` (held by the returned reference), or null.
  Ref<Queue> defaultFor(const Device &device) const;

private:
  struct Entry {
    Queue *queue;
    bool isDefault;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> queues_;
};

/// The value a kernel holds for a device queue (queue_t): its handle's address.
uint64_t deviceQueueHandle(const Queue &queue);

} // namespace kiln
