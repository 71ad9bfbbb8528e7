// Device-side enqueue, for every device.
#include "runtime/scheduling/device_enqueue.hpp"

#include "runtime/device_driver.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/program.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/local_size.hpp"

#include <atomic>
#include <cstring>
#include <map>
#include <memory>

namespace kiln {
namespace {

using compiler::BlockKernelLimits;
using compiler::DeviceEnqueueArena;
using compiler::DeviceEvent;
using compiler::EnqueueRecord;
using compiler::kEnqueueRecordAlignment;

constexpr size_t roundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// A finished launch's children in flight: the launch completes when the last has finished.
struct EnqueuedChildren {
  std::shared_ptr<Command> parent;
  std::unique_ptr<EnqueueArena> arena;
  cl_int status = CL_COMPLETE;
  std::atomic<size_t> pending{1}; // the records being read hold one

  void finishOne() {
    if (pending.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    // The arena (block literals, events) stays until every child has finished.
    std::shared_ptr<Command> done = std::move(parent);
    arena.reset();
    done->complete(status);
  }
};

/// What a child's completion callback needs: the children, and the device event that stands
/// for the child, if the kernel asked for one.
struct ChildNotice {
  std::shared_ptr<EnqueuedChildren> children;
  DeviceEvent *deviceEvent = nullptr;
};

/// Tells the device event of a finished command its status and times, and writes the times
/// where capture_event_profiling_info asked for them.
void recordFinished(const Event &event, DeviceEvent &entry) {
  cl_ulong start = event.profilingTime(CL_PROFILING_COMMAND_START);
  entry.executionTime = event.profilingTime(CL_PROFILING_COMMAND_END) - start;
  entry.completionTime = event.profilingTime(CL_PROFILING_COMMAND_COMPLETE) - start;
  if (entry.profilingResult != 0) {
    auto *result = reinterpret_cast<uint64_t *>(entry.profilingResult);
    result[0] = entry.executionTime;
    result[1] = entry.completionTime;
  }
  std::atomic_ref(entry.status).store(event.status(), std::memory_order_release);
}

void CL_CALLBACK childFinished(cl_event handle, cl_int, void *userData) {
  std::unique_ptr<ChildNotice> notice(static_cast<ChildNotice *>(userData));
  if (notice->deviceEvent != nullptr)
    recordFinished(*static_cast<Event *>(handle), *notice->deviceEvent);
  notice->children->finishOne();
}

/// Reads one launch's records and starts the commands they ask for.
class RecordReader {
public:
  RecordReader(std::shared_ptr<EnqueuedChildren> children, Program &program)
      : children_(std::move(children)), arena_(*children_->arena->arena()),
        events_(*children_->arena->events()), device_(children_->arena->device()),
        program_(program) {
    program_.executableInfo(info_);
  }

  void readAll() {
    uint64_t used = arena_.used.load(std::memory_order_acquire);
    for (uint64_t offset = 0; offset + sizeof(EnqueueRecord) <= used;) {
      const auto *record = reinterpret_cast<const EnqueueRecord *>(arena_.records + offset);
      if (record->size < sizeof(EnqueueRecord) || offset + record->size > used)
        break; // not a record the library wrote
      start(*record);
      offset += record->size;
    }
  }

private:
  void start(const EnqueueRecord &record) {
    Ref<Queue> queue = program_.context().deviceQueues().find(record.queue);
    if (!queue || &queue->device() != &device_)
      return;
    std::vector<Ref<Event>> held;
    std::vector<Event *> waitList;
    const auto *waits = reinterpret_cast<const uint32_t *>(&record + 1);
    for (uint32_t i = 0; i < record.waitCount; ++i)
      if (Event *event = waitedEvent(waits[i], held))
        waitList.push_back(event);
    std::shared_ptr<Command> command;
    if (record.kind == static_cast<uint32_t>(compiler::EnqueueRecordKind::Kernel))
      command = kernelCommand(record, *queue);
    else if (record.kind == static_cast<uint32_t>(compiler::EnqueueRecordKind::Marker))
      command = makeCommand(*queue, CL_COMMAND_MARKER, NoOperation{});
    if (command == nullptr)
      return;
    auto notice = std::make_unique<ChildNotice>();
    notice->children = children_;
    if (DeviceEvent *event = events_.entry(record.returnEvent)) {
      events_.setCommandEvent(record.returnEvent, Ref<Event>(&command->event()));
      notice->deviceEvent = event;
    }
    children_->pending.fetch_add(1, std::memory_order_relaxed);
    command->event().addCallback(CL_COMPLETE, &childFinished, notice.release());
    queue->enqueue(command, waitList);
  }

  /// The event a record waits for: a command's, or a user event as the kernel left it.
  Event *waitedEvent(uint32_t number, std::vector<Ref<Event>> &held) {
    const DeviceEvent *event = events_.entry(number);
    if (event == nullptr)
      return nullptr;
    if (event->kind == static_cast<uint32_t>(compiler::DeviceEventKind::Command)) {
      Ref<Event> command = events_.commandEvent(number);
      held.push_back(command);
      return command.get();
    }
    // A user event the kernel never set cannot be set later (its kernel has finished): what
    // waits for it runs, rather than never.
    Event *user = createObject<Event>(program_.context());
    held.push_back(Ref<Event>(user));
    user->releaseExternal();
    user->setUserStatus(event->status < 0 ? event->status : CL_COMPLETE);
    return user;
  }

  std::shared_ptr<Command> makeCommand(Queue &queue, cl_command_type type, CommandPayload payload) {
    Event *event = createObject<Event>(queue, type);
    Ref<Event> held(event);
    event->releaseExternal();
    return Command::make(std::move(held), std::move(payload));
  }

  std::shared_ptr<Command> kernelCommand(const EnqueueRecord &record, Queue &queue) {
    Kernel *kernel = blockKernel(record.kernel);
    if (kernel == nullptr)
      return nullptr;
    const auto *bytes = reinterpret_cast<const std::byte *>(&record);
    const auto *localSizes = reinterpret_cast<const uint64_t *>(
        bytes + roundUp(sizeof record + record.waitCount * 4, 8));
    // The block kernel's arguments: the block literal, then its __local pointers.
    kernel->setSvmPointer(0, bytes + record.literalOffset);
    for (uint32_t i = 0; i < record.localArgumentCount && i + 1 < kernel->argCount(); ++i)
      kernel->setLocalSize(i + 1, localSizes[i]);
    KernelLaunch launch;
    launch.kernel = Ref<Kernel>(kernel);
    launch.deviceKernel = kernel->deviceKernel(&device_);
    if (launch.deviceKernel == nullptr || kernel->launchArgs(launch.arguments) != CL_SUCCESS)
      return nullptr;
    launch.range = rangeOf(record, *launch.deviceKernel);
    launch.deviceEvents = children_->arena->events();
    return makeCommand(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(launch));
  }

  NDRange rangeOf(const EnqueueRecord &record, const DeviceKernel &code) const {
    NDRange range;
    range.workDim = record.workDim;
    bool chosen = true;
    for (unsigned dim = 0; dim < 3; ++dim) {
      range.offset[dim] = record.globalOffset[dim];
      range.global[dim] = record.globalSize[dim];
      range.local[dim] = record.localSize[dim] != 0 ? record.localSize[dim] : 1;
      chosen = chosen && record.localSize[dim] == 0;
    }
    if (chosen) {
      const DeviceInfo &info = device_.info();
      DeviceKernelInfo kernelInfo = code.info();
      range.local =
          chooseLocalSize(range.workDim, range.global,
                          {kernelInfo.maxWorkGroupSize, kernelInfo.preferredWorkGroupItems,
                           info.maxWorkItemSizes, info.maxComputeUnits});
    }
    return range;
  }

  /// The kernel object of kernel `number` of the program, made once per launch.
  Kernel *blockKernel(uint32_t number) {
    if (number < 1 || number > info_.kernels.size())
      return nullptr;
    Ref<Kernel> &kernel = kernels_[number];
    if (!kernel) {
      std::map<const Device *, DeviceKernelCode> code;
      if (!findDeviceKernels(program_, info_.kernels[number - 1].name, code))
        return nullptr;
      Kernel *made = createObject<Kernel>(program_, info_.kernels[number - 1], std::move(code));
      kernel = Ref<Kernel>(made);
      made->releaseExternal();
    }
    return kernel.get();
  }

  std::shared_ptr<EnqueuedChildren> children_;
  const DeviceEnqueueArena &arena_;
  EnqueueEvents &events_;
  Device &device_;
  Program &program_;
  compiler::ProgramInfo info_;
  std::map<uint32_t, Ref<Kernel>> kernels_;
};

} // namespace

std::unique_ptr<EnqueueArena> EnqueueArena::create(const KernelLaunch &launch, Device &device) {
  Program &program = launch.kernel->program();
  Context &context = program.context();
  compiler::ProgramInfo info;
  program.executableInfo(info);
  Ref<Queue> defaultQueue = context.deviceQueues().defaultFor(device);
  const DeviceInfo &deviceInfo = device.info();
  size_t recordBytes =
      defaultQueue ? defaultQueue->deviceQueueSize() : deviceInfo.queueOnDevicePreferredSize;
  std::shared_ptr<EnqueueEvents> events =
      launch.deviceEvents ? launch.deviceEvents
                          : EnqueueEvents::create(context, deviceInfo.maxOnDeviceEvents);
  size_t limitsOffset = roundUp(sizeof(DeviceEnqueueArena), kEnqueueRecordAlignment);
  size_t recordsOffset = roundUp(limitsOffset + info.kernels.size() * sizeof(BlockKernelLimits),
                                 kEnqueueRecordAlignment);
  AlignedStorage storage = context.allocateStorage(recordsOffset + recordBytes);
  if (storage == nullptr || events == nullptr)
    return nullptr;
  std::byte *base = storage.get();
  std::memset(base, 0, recordsOffset);
  auto *arena = std::construct_at(reinterpret_cast<DeviceEnqueueArena *>(base));
  arena->records = base + recordsOffset;
  arena->capacity = recordBytes;
  arena->events = events->table();
  arena->defaultQueue = defaultQueue ? deviceQueueHandle(*defaultQueue) : 0;
  auto *limits = reinterpret_cast<BlockKernelLimits *>(base + limitsOffset);
  arena->kernels = limits;
  arena->kernelCount = info.kernels.size();
  std::shared_ptr<const DeviceProgram> code = program.deviceProgram(device);
  for (size_t i = 0; i < info.kernels.size(); ++i) {
    const DeviceKernel *kernel = code != nullptr ? code->kernel(info.kernels[i].name) : nullptr;
    DeviceKernelInfo kernelInfo = kernel != nullptr ? kernel->info() : DeviceKernelInfo{};
    limits[i] = {kernelInfo.maxWorkGroupSize, kernelInfo.preferredWorkGroupSizeMultiple,
                 kernelInfo.subGroupSize};
  }
  return std::make_unique<EnqueueArena>(std::move(storage), std::move(events), device);
}

std::shared_ptr<EnqueueEvents> EnqueueEvents::create(const Context &context, uint32_t capacity) {
  size_t entriesOffset = roundUp(sizeof(compiler::DeviceEventTable), alignof(DeviceEvent));
  AlignedStorage storage = context.allocateStorage(entriesOffset + capacity * sizeof(DeviceEvent));
  if (storage == nullptr)
    return nullptr;
  auto *table = std::construct_at(reinterpret_cast<compiler::DeviceEventTable *>(storage.get()));
  table->entries = reinterpret_cast<DeviceEvent *>(storage.get() + entriesOffset);
  table->capacity = capacity;
  return std::make_shared<EnqueueEvents>(std::move(storage));
}

EnqueueEvents::EnqueueEvents(AlignedStorage storage) : storage_(std::move(storage)) {}

EnqueueEvents::~EnqueueEvents() = default;

DeviceEvent *EnqueueEvents::entry(uint32_t number) const {
  const compiler::DeviceEventTable &events = *table();
  return number >= 1 && number <= events.capacity ? &events.entries[number - 1] : nullptr;
}

void EnqueueEvents::setCommandEvent(uint32_t number, Ref<Event> event) {
  std::lock_guard lock(mutex_);
  commandEvents_[number] = std::move(event);
}

Ref<Event> EnqueueEvents::commandEvent(uint32_t number) const {
  std::lock_guard lock(mutex_);
  auto found = commandEvents_.find(number);
  return found != commandEvents_.end() ? found->second : nullptr;
}

void describeDeviceEnqueue(DeviceInfo &info) {
  info.deviceEnqueueCapabilities = CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT;
  info.queueOnDeviceProperties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  // A launch's arena has the default queue's size in records of at least 256 bytes; the pages a
  // launch never writes cost nothing.
  info.queueOnDevicePreferredSize = 1 << 20;
  info.queueOnDeviceMaxSize = 16 << 20;
  // Device queues cost nothing until a kernel enqueues: any number may be made; this is the
  // number the device promises.
  info.maxOnDeviceQueues = 4;
  info.maxOnDeviceEvents = 4096;
}

void completeAfterEnqueuedCommands(std::shared_ptr<Command> parent,
                                   std::unique_ptr<EnqueueArena> arena, cl_int status) {
  if (arena == nullptr || status != CL_COMPLETE) {
    parent->complete(status);
    return;
  }
  auto children = std::make_shared<EnqueuedChildren>();
  children->parent = parent;
  children->arena = std::move(arena);
  children->status = status;
  Program &program = std::get<KernelLaunch>(parent->payload()).kernel->program();
  RecordReader(children, program).readAll();
  children->finishOne();
}

} // namespace kiln
