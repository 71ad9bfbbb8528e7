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
#include "support/align_up.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace kiln {
namespace {

using compiler::BlockKernelLimits;
using compiler::DeviceEnqueueArena;
using compiler::DeviceEvent;
using compiler::DeviceEventTable;
using compiler::EnqueueRecord;
using compiler::kEnqueueRecordAlignment;

/// The smallest block the records of a finished launch are moved to.
constexpr size_t kSmallestRecordsBlock = 4096;

/// A launch's children run in commands of at most this many launches each: the first of them
/// start while the records of the others are read, and the children that enqueue kernels in
/// turn have theirs read by several threads, each command's by the one that completes it.
constexpr size_t kLaunchesPerCommand = 32;

/// Launches that share an arena get this many launches' room at most.
constexpr size_t kMostLaunchesSized = 16;

/// Where an arena's records start, after its header.
constexpr size_t kRecordsOffset = alignUp(sizeof(DeviceEnqueueArena), kEnqueueRecordAlignment);

/// An arena's header at the start of `storage`, for `capacity` bytes of records after it and the
/// launches of `tree`; `defaultQueue` is what get_default_queue() returns.
DeviceEnqueueArena &placeArena(const PooledStorage &storage, uint64_t capacity,
                               const EnqueueTree &tree, uint64_t defaultQueue) {
  auto *arena = std::construct_at(reinterpret_cast<DeviceEnqueueArena *>(storage.get()));
  arena->records = storage.get() + kRecordsOffset;
  arena->capacity = capacity;
  arena->events = tree.events();
  arena->defaultQueue = defaultQueue;
  arena->kernels = tree.kernelLimits();
  arena->kernelCount = tree.kernelCount();
  return *arena;
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
    // The arena (block literals) stays until every child has finished.
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

/// Tells the device event of a finished command its status and times (which a kernel that
/// captures them later copies).
void recordFinished(const Event &event, DeviceEvent &entry) {
  cl_ulong start = event.profilingTime(CL_PROFILING_COMMAND_START);
  entry.executionTime = event.profilingTime(CL_PROFILING_COMMAND_END) - start;
  entry.completionTime = event.profilingTime(CL_PROFILING_COMMAND_COMPLETE) - start;
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
  explicit RecordReader(std::shared_ptr<EnqueuedChildren> children)
      : children_(std::move(children)), arena_(*children_->arena->arena()),
        tree_(*children_->arena->tree()), batches_(tree_.device().driver().runsChildLaunches()) {}

  void readAll() {
    uint64_t used = arena_.used.load(std::memory_order_acquire);
    for (uint64_t offset = 0; offset + sizeof(EnqueueRecord) <= used;) {
      const auto *record = reinterpret_cast<const EnqueueRecord *>(arena_.records + offset);
      if (record->size < sizeof(EnqueueRecord) || offset + record->size > used)
        break; // not a record the library wrote
      start(*record);
      offset += record->size;
    }
    for (auto &[queue, records] : batched_)
      startBatch(*queue, records);
  }

private:
  void start(const EnqueueRecord &record) {
    const Ref<Queue> &queue = queueOf(record.queue);
    if (!queue || &queue->device() != &tree_.device())
      return;
    if (addToBatch(record, queue))
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
      command = Command::makeInternal(*queue, CL_COMMAND_MARKER, NoOperation{});
    if (command == nullptr)
      return;
    DeviceEvent *event = tree_.entry(record.returnEvent);
    if (event != nullptr)
      tree_.setCommandEvent(record.returnEvent, Ref<Event>(&command->event()));
    launch(*queue, command, waitList, event);
    // The kernel asked for the command's times before it ran (capture_event_profiling_info):
    // the device copies them from its event when it has finished (the address may be the
    // device's own memory, which the host cannot write).
    // What waits for the device event then waits for the copy too.
    if (event != nullptr && event->profilingResult != 0) {
      Event *after = &command->event();
      std::shared_ptr<Command> copy = Command::makeInternal(
          *queue, CL_COMMAND_SVM_MEMCPY,
          CopyMemory{reinterpret_cast<std::byte *>(event->profilingResult),
                     reinterpret_cast<const std::byte *>(&event->executionTime),
                     2 * sizeof(uint64_t),
                     {},
                     {}});
      tree_.setCommandEvent(record.returnEvent, Ref<Event>(&copy->event()));
      launch(*queue, copy, std::span<Event *const>(&after, 1), nullptr);
    }
  }

  /// Enqueues `command` as one of the children; `deviceEvent` learns when it has finished.
  void launch(Queue &queue, const std::shared_ptr<Command> &command,
              std::span<Event *const> waitList, DeviceEvent *deviceEvent) {
    auto notice = std::make_unique<ChildNotice>();
    notice->children = children_;
    notice->deviceEvent = deviceEvent;
    children_->pending.fetch_add(1, std::memory_order_relaxed);
    command->event().addCallback(CL_COMPLETE, &childFinished, notice.release());
    queue.enqueue(command, waitList);
  }

  /// The event a record waits for: a command's, or a user event as the kernel left it.
  Event *waitedEvent(uint32_t number, std::vector<Ref<Event>> &held) {
    const DeviceEvent *event = tree_.entry(number);
    if (event == nullptr)
      return nullptr;
    if (event->kind == static_cast<uint32_t>(compiler::DeviceEventKind::Command)) {
      Ref<Event> command = tree_.commandEvent(number);
      held.push_back(command);
      return command.get();
    }
    // A user event the kernel never set cannot be set later (its kernel has finished): what
    // waits for it runs, rather than never.
    Event *user = createObject<Event>(tree_.program().context());
    held.push_back(Ref<Event>(user));
    user->releaseExternal();
    user->setUserStatus(event->status < 0 ? event->status : CL_COMPLETE);
    return user;
  }

  /// Adds a kernel that waits for nothing and has no event (which nothing could then wait for)
  /// to the launches its queue runs together, where the device runs such launches; false for
  /// any other record.
  bool addToBatch(const EnqueueRecord &record, const Ref<Queue> &queue) {
    if (record.kind != static_cast<uint32_t>(compiler::EnqueueRecordKind::Kernel) ||
        record.waitCount != 0 || tree_.entry(record.returnEvent) != nullptr || !batches_)
      return false;
    auto batch = std::find_if(batched_.begin(), batched_.end(),
                              [&](const auto &each) { return each.first == queue; });
    if (batch == batched_.end())
      batch = batched_.insert(batched_.end(), {queue, {}});
    batch->second.push_back(&record);
    if (batch->second.size() == kLaunchesPerCommand)
      startBatch(*queue, batch->second);
    return true;
  }

  /// Starts the launches of `records` as one command (a launch alone as a plain launch, which
  /// costs less) and empties it.
  void startBatch(Queue &queue, std::vector<const EnqueueRecord *> &records) {
    std::shared_ptr<Command> command = records.size() == 1 ? kernelCommand(*records.front(), queue)
                                                           : childLaunchesCommand(records, queue);
    records.clear();
    if (command != nullptr)
      launch(queue, command, {}, nullptr);
  }

  /// The ChildLaunches of kernel `records`; null when none of their kernels is the program's.
  std::shared_ptr<Command> childLaunchesCommand(std::span<const EnqueueRecord *const> records,
                                                Queue &queue) {
    ChildLaunches batch;
    batch.tree = children_->arena->tree();
    batch.children.reserve(records.size());
    for (const EnqueueRecord *record : records) {
      BlockCode block = blockCodeOf(*record);
      if (block.code == nullptr)
        continue;
      ChildLaunches::Child &child = batch.children.emplace_back();
      child.kernel = block.kernel;
      child.deviceKernel = block.code;
      child.range = rangeOf(*record, *block.code);
      child.argumentsOffset = batch.arguments.size();
      batch.arguments.resize(child.argumentsOffset +
                             alignUp(std::max<size_t>(block.kernel->argBlockSize(), 1), 64));
      child.localMemorySize =
          block.kernel->writeBlockArguments(literalOf(*record), localSizesOf(*record),
                                            batch.arguments.data() + child.argumentsOffset);
    }
    if (batch.children.empty())
      return nullptr;
    return Command::makeInternal(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(batch));
  }

  /// A kernel record's block kernel and its code on the tree's device.
  struct BlockCode {
    Kernel *kernel = nullptr;
    const DeviceKernel *code = nullptr; // null when the program or the device has none
  };
  BlockCode blockCodeOf(const EnqueueRecord &record) {
    Kernel *kernel = blockKernel(record.kernel);
    return {kernel, kernel != nullptr ? kernel->deviceKernel(&tree_.device()) : nullptr};
  }

  /// The device queue of `handle`, asked of the context once for a run of records.
  const Ref<Queue> &queueOf(uint64_t handle) {
    if (handle != lastQueueHandle_) {
      lastQueue_ = tree_.program().context().deviceQueues().find(handle);
      lastQueueHandle_ = handle;
    }
    return lastQueue_;
  }

  /// The kernel object of kernel `number`, asked of the tree once for a run of records.
  Kernel *blockKernel(uint32_t number) {
    if (number != lastKernelNumber_) {
      lastKernel_ = tree_.blockKernel(number);
      lastKernelNumber_ = number;
    }
    return lastKernel_;
  }

  /// The copy of the block literal in a kernel record.
  static const std::byte *literalOf(const EnqueueRecord &record) {
    return reinterpret_cast<const std::byte *>(&record) + record.literalOffset;
  }

  /// The sizes of the __local arguments a kernel record's block takes.
  static std::span<const uint64_t> localSizesOf(const EnqueueRecord &record) {
    const auto *bytes = reinterpret_cast<const std::byte *>(&record);
    return {reinterpret_cast<const uint64_t *>(bytes +
                                               alignUp(sizeof record + record.waitCount * 4, 8)),
            record.localArgumentCount};
  }

  std::shared_ptr<Command> kernelCommand(const EnqueueRecord &record, Queue &queue) {
    BlockCode block = blockCodeOf(record);
    if (block.code == nullptr)
      return nullptr;
    KernelLaunch launch;
    launch.kernel = Ref<Kernel>(block.kernel);
    launch.deviceKernel = block.code;
    // A block kernel names no memory objects, and its literal lies in the launch's arena, which
    // is no SVM allocation: the argument block is all a launch of it needs.
    launch.arguments.block.resize(block.kernel->argBlockSize());
    launch.arguments.localMemorySize = block.kernel->writeBlockArguments(
        literalOf(record), localSizesOf(record), launch.arguments.block.data());
    launch.range = rangeOf(record, *block.code);
    launch.enqueueTree = children_->arena->tree();
    return Command::makeInternal(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(launch));
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
      range.local = chooseLocalSize(range.workDim, range.global,
                                    LocalSizeLimits::of(code.info(), tree_.device().info()));
    }
    return range;
  }

  std::shared_ptr<EnqueuedChildren> children_;
  const DeviceEnqueueArena &arena_;
  EnqueueTree &tree_;
  /// Whether the device runs kernels without events together (DeviceDriver::runsChildLaunches).
  const bool batches_;
  /// The records of the launches each queue runs as one command, started once there are
  /// kLaunchesPerCommand of them or every record has been read.
  std::vector<std::pair<Ref<Queue>, std::vector<const EnqueueRecord *>>> batched_;
  uint64_t lastQueueHandle_ = 0;
  Ref<Queue> lastQueue_;
  uint32_t lastKernelNumber_ = 0;
  Kernel *lastKernel_ = nullptr;
};

} // namespace

compiler::BlockKernelLimits blockKernelLimits(const DeviceKernelInfo &kernel,
                                              const std::array<size_t, 3> &maxWorkItemSizes) {
  return {kernel.maxWorkGroupSize,
          kernel.preferredWorkGroupSizeMultiple,
          kernel.subGroupSize,
          {maxWorkItemSizes[0], maxWorkItemSizes[1], maxWorkItemSizes[2]}};
}

std::shared_ptr<EnqueueTree> EnqueueTree::create(Program &program, Device &device) {
  compiler::ProgramInfo info;
  if (!program.executableInfo(info))
    return nullptr;
  auto tree = std::make_shared<EnqueueTree>(program, device, std::move(info));
  return tree->allocate() ? tree : nullptr;
}

EnqueueTree::EnqueueTree(Program &program, Device &device, compiler::ProgramInfo info)
    : program_(program), device_(device), info_(std::move(info)) {}

EnqueueTree::~EnqueueTree() = default;

bool EnqueueTree::allocate() {
  uint32_t capacity = device_.info().maxOnDeviceEvents;
  size_t entriesOffset = alignUp(sizeof(DeviceEventTable), alignof(DeviceEvent));
  size_t limitsOffset = alignUp(entriesOffset + capacity * sizeof(DeviceEvent), 64);
  size_t size = alignUp(limitsOffset + info_.kernels.size() * sizeof(BlockKernelLimits), 4096);
  storage_ = program_.context().storagePool().take(size);
  if (!storage_)
    return false;
  auto *table = std::construct_at(reinterpret_cast<DeviceEventTable *>(storage_.get()));
  table->entries = reinterpret_cast<DeviceEvent *>(storage_.get() + entriesOffset);
  table->capacity = capacity;
  auto *limits = reinterpret_cast<BlockKernelLimits *>(storage_.get() + limitsOffset);
  std::shared_ptr<const DeviceProgram> code = program_.deviceProgram(device_);
  for (size_t i = 0; i < info_.kernels.size(); ++i) {
    const DeviceKernel *kernel = code != nullptr ? code->kernel(info_.kernels[i].name) : nullptr;
    limits[i] = blockKernelLimits(kernel != nullptr ? kernel->info() : DeviceKernelInfo{},
                                  device_.info().maxWorkItemSizes);
  }
  kernelLimits_ = limits;
  return true;
}

DeviceEvent *EnqueueTree::entry(uint32_t number) const {
  const DeviceEventTable &table = *events();
  return number >= 1 && number <= table.capacity ? &table.entries[number - 1] : nullptr;
}

void EnqueueTree::setCommandEvent(uint32_t number, Ref<Event> event) {
  std::lock_guard lock(mutex_);
  commandEvents_[number] = std::move(event);
}

Ref<Event> EnqueueTree::commandEvent(uint32_t number) const {
  std::lock_guard lock(mutex_);
  auto found = commandEvents_.find(number);
  return found != commandEvents_.end() ? found->second : nullptr;
}

Kernel *EnqueueTree::blockKernel(uint32_t number) {
  if (number < 1 || number > info_.kernels.size())
    return nullptr;
  std::lock_guard lock(mutex_);
  Ref<Kernel> &made = kernels_[number];
  if (!made) {
    std::map<const Device *, DeviceKernelCode> code;
    if (!findDeviceKernels(program_, info_.kernels[number - 1].name, code))
      return nullptr;
    Kernel *object = createObject<Kernel>(program_, info_.kernels[number - 1], std::move(code));
    made = Ref<Kernel>(object);
    object->releaseExternal();
  }
  return made.get();
}

std::unique_ptr<EnqueueArena> EnqueueArena::create(const KernelLaunch &launch, Device &device) {
  std::shared_ptr<EnqueueTree> tree = launch.enqueueTree
                                          ? launch.enqueueTree
                                          : EnqueueTree::create(launch.kernel->program(), device);
  if (tree == nullptr)
    return nullptr;
  return forTree(std::move(tree), device, 1);
}

std::unique_ptr<EnqueueArena> EnqueueArena::forTree(std::shared_ptr<EnqueueTree> tree,
                                                    Device &device, size_t launches) {
  Context &context = tree->program().context();
  Ref<Queue> defaultQueue = context.deviceQueues().defaultFor(device);
  size_t recordBytes =
      defaultQueue ? defaultQueue->deviceQueueSize() : device.info().queueOnDevicePreferredSize;
  // Launches that share an arena have the room of several, up to the largest device queue, in
  // sizes of powers of two that the pool can keep; the pages they never write cost nothing.
  size_t shared = recordBytes * std::bit_ceil(std::clamp<size_t>(launches, 1, kMostLaunchesSized));
  recordBytes =
      std::max<size_t>(recordBytes, std::min<size_t>(shared, device.info().queueOnDeviceMaxSize));
  PooledStorage storage = context.storagePool().take(kRecordsOffset + recordBytes);
  if (!storage)
    return nullptr;
  placeArena(storage, recordBytes, *tree, defaultQueue ? deviceQueueHandle(*defaultQueue) : 0);
  return std::make_unique<EnqueueArena>(std::move(storage), std::move(tree));
}

std::unique_ptr<EnqueueArena> EnqueueArena::withRecordsOnly() const {
  const DeviceEnqueueArena &full = *arena();
  uint64_t used = std::min(full.used.load(std::memory_order_acquire), full.capacity);
  // Sizes of powers of two, so that the pool has few of them to keep.
  size_t size = std::bit_ceil(std::max<size_t>(kRecordsOffset + used, kSmallestRecordsBlock));
  if (size >= storage_.size())
    return nullptr;
  PooledStorage storage = tree_->program().context().storagePool().take(size);
  if (!storage)
    return nullptr;
  DeviceEnqueueArena &copy = placeArena(storage, used, *tree_, full.defaultQueue);
  copy.used.store(used, std::memory_order_relaxed);
  std::memcpy(copy.records, full.records, used);
  return std::make_unique<EnqueueArena>(std::move(storage), tree_);
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
  if (arena == nullptr || status != CL_COMPLETE ||
      arena->arena()->used.load(std::memory_order_acquire) == 0) {
    parent->complete(status);
    return;
  }
  if (std::unique_ptr<EnqueueArena> records = arena->withRecordsOnly())
    arena = std::move(records); // the launch's arena goes back to the pool now
  auto children = std::make_shared<EnqueuedChildren>();
  children->parent = parent;
  children->arena = std::move(arena);
  children->status = status;
  RecordReader(children).readAll();
  children->finishOne();
}

} // namespace kiln
