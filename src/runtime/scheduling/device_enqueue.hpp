// Device-side enqueue, for every device: the arena a launch's kernel appends its enqueues to
// (compiler/device_enqueue_format.hpp), and what happens once the launch has finished: each
// record becomes a command on its device queue, waiting for the device events it names, and
// the launch's own command completes only when all of them have (OpenCL C: a parent's event
// completes when its children's have). Devices call these around their launches; the children
// go through the runtime's scheduler like any command, never through the API layer.
#pragma once

#include "compiler/device_enqueue_format.hpp"
#include "runtime/objects/device_info.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/object.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace kiln {

class Command;
class Context;
class Event;
class Device;
class Program;
class Queue;
struct KernelLaunch;

/// The device events of a launch from the host and of everything it enqueues: their entries,
/// in memory the device and the host both address, and the events of the commands they stand
/// for.
class EnqueueEvents {
public:
  /// Room for `capacity` events; null when out of memory.
  static std::shared_ptr<EnqueueEvents> create(const Context &context, uint32_t capacity);

  explicit EnqueueEvents(AlignedStorage storage);
  ~EnqueueEvents();

  compiler::DeviceEventTable *table() const {
    return reinterpret_cast<compiler::DeviceEventTable *>(storage_.get());
  }
  /// The entry of device event `number`, or null when there is none.
  compiler::DeviceEvent *entry(uint32_t number) const;
  /// The command that device event `number` stands for.
  void setCommandEvent(uint32_t number, Ref<Event> event);
  Ref<Event> commandEvent(uint32_t number) const;

private:
  AlignedStorage storage_;
  mutable std::mutex mutex_;
  std::map<uint32_t, Ref<Event>> commandEvents_;
};

/// The arena of one launch, in memory the launch's device and the host both address.
class EnqueueArena {
public:
  /// For `launch` on `device`; null when out of memory.
  static std::unique_ptr<EnqueueArena> create(const KernelLaunch &launch, Device &device);

  EnqueueArena(AlignedStorage storage, std::shared_ptr<EnqueueEvents> events, Device &device)
      : storage_(std::move(storage)), events_(std::move(events)), device_(device) {}

  compiler::DeviceEnqueueArena *arena() const {
    return reinterpret_cast<compiler::DeviceEnqueueArena *>(storage_.get());
  }
  const std::shared_ptr<EnqueueEvents> &events() const { return events_; }
  Device &device() const { return device_; }

private:
  AlignedStorage storage_;
  std::shared_ptr<EnqueueEvents> events_;
  Device &device_;
};

/// Fills the device-queue values of a device that runs device-side enqueue through this code:
/// capabilities, queue properties and sizes, queue and event counts.
void describeDeviceEnqueue(DeviceInfo &info);

/// The launch of `parent` has finished with `status`: starts the commands its records ask for
/// and completes `parent` once they have all finished (at once when there are none, or when
/// the launch failed).
void completeAfterEnqueuedCommands(std::shared_ptr<Command> parent,
                                   std::unique_ptr<EnqueueArena> arena, cl_int status);

} // namespace kiln
