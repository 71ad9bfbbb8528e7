// A command in flight: what to do (a payload a device driver executes), the event that reports
// its status, and the dependencies it waits for. Commands keep every object they use alive.
#pragma once

#include "runtime/objects/context.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/object.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <variant>
#include <vector>

namespace kiln {

class DeviceKernel;
class EnqueueTree;
class Queue;
struct RecordedCommands;

/// A 3-D region of a buffer seen as rows and slices (the *Rect commands).
struct BufferRect {
  std::array<size_t, 3> origin{}; // bytes, rows, slices
  size_t rowPitch = 0;
  size_t slicePitch = 0;

  /// Where row `row` of slice `slice` of the region starts, in bytes from the start of memory.
  size_t offsetOf(size_t row = 0, size_t slice = 0) const {
    return origin[0] + (origin[1] + row) * rowPitch + (origin[2] + slice) * slicePitch;
  }
};

struct NDRange {
  cl_uint workDim = 1;
  std::array<size_t, 3> offset{0, 0, 0};
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{1, 1, 1};

  bool operator==(const NDRange &) const = default;
};

struct KernelLaunch {
  Ref<Kernel> kernel; // keeps the program and its device code alive
  const DeviceKernel *deviceKernel = nullptr;
  LaunchArguments arguments;
  NDRange range;
  /// A launch a kernel enqueued: what its launch tree shares (scheduling/device_enqueue.hpp);
  /// null for a launch from the host.
  std::shared_ptr<EnqueueTree> enqueueTree;
};

/// Kernels that kernels enqueued (device-side enqueue) with no events to wait for and none of
/// their own: nothing orders them, so a device may run them as one command, their work-groups
/// spread over its cores together, instead of a command and an event each. The command
/// finishes after all of them and after the kernels they enqueue. Only for drivers that ask for
/// them (DeviceDriver::runsChildLaunches).
struct ChildLaunches {
  /// One launch of a block kernel, whose arguments are the block literal and __local sizes,
  /// never memory objects: what a device needs is its argument block.
  struct Child {
    const Kernel *kernel = nullptr; // the tree holds it
    const DeviceKernel *deviceKernel = nullptr;
    NDRange range;
    size_t argumentsOffset = 0; // of its argument block in `arguments`
    size_t localMemorySize = 0; // per work-group
  };
  /// Keeps the program, the block kernels and the device code alive.
  std::shared_ptr<EnqueueTree> tree;
  std::vector<Child> children;
  /// The children's argument blocks, one after the other, each at a multiple of 64 bytes.
  std::vector<std::byte, RecyclingAllocator<std::byte>> arguments;

  const std::byte *argumentsOf(const Child &child) const {
    return arguments.data() + child.argumentsOffset;
  }
};

struct ReadBuffer {
  Ref<MemObject> buffer;
  size_t offset, size;
  void *destination;
};
struct WriteBuffer {
  Ref<MemObject> buffer;
  size_t offset, size;
  const void *source;
};
struct CopyBuffer {
  Ref<MemObject> source, destination;
  size_t sourceOffset, destinationOffset, size;
};
struct FillBuffer {
  Ref<MemObject> buffer;
  size_t offset, size;
  std::vector<std::byte> pattern;
};
/// Read, write and copy of rectangular regions: `region` is {bytes, rows, slices}.
struct CopyRect {
  enum class Direction { BufferToHost, HostToBuffer, BufferToBuffer } direction;
  Ref<MemObject> source, destination; // the buffers involved (null for host memory)
  void *hostPointer;
  BufferRect sourceRect{}, destinationRect{};
  std::array<size_t, 3> region{};
};
/// clEnqueueFillImage: one element repeated over a region of `rect`'s rows and slices;
/// `region` counts elements, rows and slices.
struct FillImage {
  Ref<MemObject> image;
  BufferRect rect{};
  std::array<size_t, 3> region{};
  size_t elementSize = 0;
  std::array<std::byte, 16> element{};
};
/// Map and unmap are ordered commands with events; they move data only for mappings through a
/// copy (MemObject::Mapping::throughCopy): a map copies the region out to `mappedPointer` unless
/// the host overwrites it all, an unmap of a writing map copies it back in.
struct MapBuffer {
  Ref<MemObject> buffer;
  void *mappedPointer;
  size_t offset = 0, size = 0;
  bool copiesOut = false;
};
struct UnmapBuffer {
  Ref<MemObject> buffer;
  void *mappedPointer;
  size_t offset = 0, size = 0;
  bool copiesIn = false;
};
struct NativeKernel {
  void(CL_CALLBACK *function)(void *);
  std::vector<std::byte> args;
  /// Places in `args` that hold a cl_mem to be replaced by the buffer's address.
  std::vector<std::pair<size_t, Ref<MemObject>>> memLocations;
};
/// clEnqueueMigrateMemObjects: moves the objects' bytes to the host (`toHost`) or to the
/// queue's device, where the device keeps memory objects in more than one place (a GPU's managed
/// memory); for the others, only ordering. (CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED moves them
/// all the same.)
struct MigrateMemory {
  std::vector<Ref<MemObject>> memObjects;
  bool toHost = false;
};
/// clEnqueueSVMMemcpy: bytes between two addresses the host and the queue's device both reach,
/// each in an SVM allocation (`...Allocation`, which the command holds) or in the host's memory
/// (fine-grained system SVM: a null allocation).
struct CopyMemory {
  std::byte *destination;
  const std::byte *source;
  size_t size;
  Ref<MemObject> destinationAllocation, sourceAllocation;
};
/// clEnqueueSVMMemFill: `pattern` repeated over [destination, destination + size).
struct FillMemory {
  std::byte *destination;
  size_t size;
  std::vector<std::byte> pattern;
  Ref<MemObject> allocation; // null for the host's memory
};
/// clEnqueueSVMFree: the application's callback with the pointers, or, without one, what
/// clSVMFree does to each.
struct FreeSvm {
  using Callback = void(CL_CALLBACK *)(cl_command_queue, cl_uint, void *[], void *);
  Callback callback;
  void *userData;
  cl_command_queue queue;
  std::vector<void *> pointers;
  Ref<Context> context;
};
/// Markers and barriers: nothing to run, only ordering.
struct NoOperation {};
/// clEnqueueCommandBufferKHR: one replay of a finalized command buffer's commands
/// (scheduling/command_buffer_replay.hpp). The runtime runs it; drivers never see it.
struct RunCommandBuffer {
  std::shared_ptr<const RecordedCommands> commands;
};

using CommandPayload =
    std::variant<KernelLaunch, ChildLaunches, ReadBuffer, WriteBuffer, CopyBuffer, FillBuffer,
                 CopyRect, FillImage, MapBuffer, UnmapBuffer, NativeKernel, MigrateMemory,
                 CopyMemory, FillMemory, FreeSvm, NoOperation, RunCommandBuffer>;

/// Whether a command with `payload` finishes only after work it starts on its own: a kernel that
/// enqueues kernels finishes after them, a command buffer's run after its commands. What follows
/// it in an in-order queue waits for it to finish, even on a device that keeps submission order.
bool finishesAfterItsWork(const CommandPayload &payload);

class Command : public std::enable_shared_from_this<Command> {
public:
  /// A new command; its memory (and that of its shared_ptr) comes from the recycled blocks.
  static std::shared_ptr<Command> make(Ref<Event> event, CommandPayload payload) {
    return std::allocate_shared<Command>(RecyclingAllocator<Command>(), std::move(event),
                                         std::move(payload));
  }

  /// A command Kiln enqueues for itself on `queue` (its event has no application reference).
  static std::shared_ptr<Command> makeInternal(Queue &queue, cl_command_type type,
                                               CommandPayload payload);

  Command(Ref<Event> event, CommandPayload payload)
      : event_(std::move(event)), payload_(std::move(payload)) {}

  Event &event() const { return *event_; }
  CommandPayload &payload() { return payload_; }

  /// For drivers: the command started executing.
  void markRunning() { event_->setStatus(CL_RUNNING); }
  /// For drivers: the command finished with CL_COMPLETE or a negative error code.
  void complete(cl_int status);

  // Scheduling (Queue and Event): the command is submitted to its device once every dependency
  // has finished and the enqueue itself has released its hold.
  void addPendingDependency() { pending_.fetch_add(1, std::memory_order_relaxed); }
  /// One dependency (or the enqueue's hold) finished with `status`.
  void dependencyFinished(cl_int status, bool propagatesErrors);

private:
  /// Counts one dependency off; true when it was the last.
  bool releaseDependency(cl_int status, bool propagatesErrors);
  /// Submits this command and every in-order successor that its submission makes ready, one
  /// after the other (not recursively: a long queue behind a user event would overflow the
  /// stack).
  void submit();
  /// Submits this command alone; returns the successors its submission made ready.
  std::vector<std::shared_ptr<Command>> submitOne();

  Ref<Event> event_;
  CommandPayload payload_;
  std::atomic<int> pending_{1}; // the enqueue's own hold
  std::atomic<bool> dependencyFailed_{false};
};

} // namespace kiln
