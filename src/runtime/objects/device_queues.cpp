// The device queues of one context.
#include "runtime/objects/device_queues.hpp"

#include "runtime/objects/queue.hpp"

#include <algorithm>

namespace kiln {

void DeviceQueues::add(Queue &queue, bool makeDefault) {
  std::lock_guard lock(mutex_);
  bool hasDefault = std::any_of(queues_.begin(), queues_.end(), [&](const Entry &entry) {
    return entry.isDefault && &entry.queue->device() == &queue.device();
  });
  queues_.push_back({&queue, makeDefault && !hasDefault});
}

void DeviceQueues::remove(Queue &queue) {
  std::lock_guard lock(mutex_);
  std::erase_if(queues_, [&](const Entry &entry) { return entry.queue == &queue; });
}

Ref<Queue> DeviceQueues::find(uint64_t handle) const {
  std::lock_guard lock(mutex_);
  for (const Entry &entry : queues_)
    if (deviceQueueHandle(*entry.queue) == handle && entry.queue->tryRetainInternal())
      return Ref<Queue>::adopt(entry.queue);
  return nullptr;
}

void DeviceQueues::setDefault(const Device &device, Queue &queue) {
  std::lock_guard lock(mutex_);
  for (Entry &entry : queues_)
    if (&entry.queue->device() == &device)
      entry.isDefault = entry.queue == &queue;
}

Ref<Queue> DeviceQueues::defaultFor(const Device &device) const {
  std::lock_guard lock(mutex_);
  for (const Entry &entry : queues_)
    if (entry.isDefault && &entry.queue->device() == &device && entry.queue->tryRetainInternal())
      return Ref<Queue>::adopt(entry.queue);
  return nullptr;
}

uint64_t deviceQueueHandle(const Queue &queue) {
  return reinterpret_cast<uint64_t>(static_cast<const _cl_command_queue *>(&queue));
}

} // namespace kiln
