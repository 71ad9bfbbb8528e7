#include "devices/cuda/cuda_driver.hpp"

#include "compiler/argument_block.hpp"
#include "devices/cuda/command_thread.hpp"
#include "devices/cuda/cuda_device_info.hpp"
#include "devices/cuda/cuda_library.hpp"
#include "devices/cuda/cuda_program.hpp"
#include "devices/cuda/current_context.hpp"
#include "devices/cuda/device_fill.hpp"
#include "devices/cuda/device_image.hpp"
#include "devices/cuda/event_clock.hpp"
#include "devices/cuda/event_pool.hpp"
#include "devices/cuda/launch_abi.hpp"
#include "devices/cuda/managed_residency.hpp"
#include "devices/cuda/ptx_compiler.hpp"
#include "devices/cuda/stream_assignment.hpp"
#include "runtime/objects/compiler_loader.hpp"
#include "runtime/objects/kiln_language.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/printf/printf_output.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/host_commands.hpp"
#include "runtime/scheduling/work_group_grid.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <utility>

namespace kiln::cuda {
namespace {

/// How many streams a GPU's commands are spread over: enough for a few queues, or the
/// independent commands of an out-of-order queue, to run side by side.
constexpr size_t kStreams = 4;

/// One CUDA stream of a GPU, and the thread that completes its commands in the order they were
/// put on it.
struct Lane {
  size_t index = 0;
  CUstream stream = nullptr; // launches come from any thread: CUDA streams allow that
  std::mutex orderMutex;     // keeps the stream in submission order
  int threadStartsAhead = 0; // submitted commands the command thread has yet to start
  std::unique_ptr<CommandThread> commands;
};

/// Whether `memory`'s storage is managed memory, which moves between the host and the GPU (not
/// the pinned host memory of CL_MEM_ALLOC_HOST_PTR).
bool isManaged(const MemObject &memory) {
  return placementOf(memory.flags()) == MemoryPlacement::Device;
}

/// Whether `memory` is a buffer in managed memory, which the copy engines may copy to and from
/// (images are left to the host, which keeps their textures in step).
bool isManagedBuffer(const MemObject &memory) {
  return memory.type() == CL_MEM_OBJECT_BUFFER && isManaged(memory);
}

/// Whether the copy engines can carry out the rectangle copy `copy` (cuMemcpy3DAsync): between
/// buffers in managed memory and the host's memory, with slices a whole number of rows apart.
bool copiesRectOnStream(const CopyRect &copy) {
  auto managedBuffer = [](const Ref<MemObject> &memory) {
    return memory == nullptr || isManagedBuffer(*memory);
  };
  auto fits = [&](const BufferRect &rect) {
    return rect.rowPitch > 0 && rect.rowPitch <= (size_t{1} << 31) &&
           (copy.region[2] <= 1 || rect.slicePitch % rect.rowPitch == 0);
  };
  return managedBuffer(copy.source) && managedBuffer(copy.destination) && fits(copy.sourceRect) &&
         fits(copy.destinationRect);
}

/// Where one side of a rectangle copy starts, its row pitch, and its rows per slice.
struct RectSide {
  std::byte *base;
  size_t rowPitch, rowsPerSlice;
};

RectSide rectSide(std::byte *data, const BufferRect &rect, const std::array<size_t, 3> &region) {
  return {data + rect.offsetOf(), rect.rowPitch,
          region[2] > 1 ? rect.slicePitch / rect.rowPitch : region[1]};
}

/// Whether the GPU and the host may use managed memory at the same time, the pages moving on
/// demand and on request (cuMemPrefetchAsync).
bool hasConcurrentManagedAccess(const CudaLibrary &cuda, CUdevice device) {
  int value = 0;
  return cuda.deviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device) ==
             CUDA_SUCCESS &&
         value != 0;
}

/// The commands whose order a stream must keep: those of one in-order queue.
const void *orderKeyOf(const Command &command) {
  const Queue *queue = command.event().queue();
  return queue != nullptr && queue->isInOrder() ? queue : nullptr;
}

class CudaDriver final : public DeviceDriver {
public:
  CudaDriver(CodeGeneratorHandle<PtxCompiler> ptxCompiler, std::shared_ptr<const CudaLibrary> cuda,
             int ordinal, CUdevice device, CUcontext context)
      : ptxCompiler_(ptxCompiler), cuda_(std::move(cuda)), device_(device), context_(context),
        info_(describeGpu(*cuda_, device_, properties_)), target_(compilerTargetOf(info_)),
        residency_(*cuda_, ordinal, hasConcurrentManagedAccess(*cuda_, device)) {
    CurrentContext current(*cuda_, context_);
    for (size_t index = 0; index < kStreams; ++index) {
      auto lane = std::make_unique<Lane>();
      lane->index = index;
      if (cuda_->streamCreate(&lane->stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
        lane->stream = nullptr;
      lane->commands = std::make_unique<CommandThread>(
          [this, &lane = *lane](std::vector<CommandThread::Item> &batch) { finish(lane, batch); });
      lanes_.push_back(std::move(lane));
    }
  }

  const DeviceInfo &info() const override { return info_; }
  const compiler::TargetDescription &compilerTarget() const override { return target_; }

  std::unique_ptr<DeviceProgram> loadProgram(const compiler::Bitcode &module,
                                             const compiler::ProgramInfo &info, bool optimize,
                                             std::string &error) override {
    PtxCompiler *compiler = ptxCompiler_.get(error);
    if (compiler == nullptr)
      return nullptr;
    PtxResult ptx = compiler->compile(module, info, properties_.smVersion, optimize);
    if (!ptx.success) {
      error = ptx.error;
      return nullptr;
    }
    return CudaProgram::load(cuda_, context_, std::move(ptx.ptx), info,
                             properties_.maxDynamicSharedBytes, error);
  }

  std::unique_ptr<DeviceProgram> loadSerializedProgram(std::span<const std::byte> bytes,
                                                       const compiler::Bitcode &,
                                                       const compiler::ProgramInfo &info,
                                                       bool) override {
    std::string error;
    return CudaProgram::load(
        cuda_, context_, std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()),
        info, properties_.maxDynamicSharedBytes, error);
  }

  std::string codeIdentity() const override {
    return info_.name + "|sm_" + std::to_string(properties_.smVersion);
  }

  bool hasOwnMemory() const override { return true; }

  AlignedStorage allocateSharedMemory(size_t size, MemoryPlacement placement) override {
    CurrentContext current(*cuda_, context_);
    if (placement == MemoryPlacement::Host) {
      if (AlignedStorage pinned = allocatePinnedMemory(size))
        return pinned;
      // Pinned memory is a scarcer resource than memory: fall back to managed memory.
    }
    CUdeviceptr pointer = 0;
    if (cuda_->memAllocManaged(&pointer, size, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS)
      return nullptr;
    AlignedStorage storage(reinterpret_cast<std::byte *>(pointer),
                           StorageRelease{&CudaDriver::releaseSharedMemory, this});
    residency_.allocated(storage.get(), size);
    return storage;
  }

  bool keepsSubmissionOrder() const override { return true; }

  std::chrono::microseconds hostWaitPollTime() const override {
    return std::chrono::milliseconds(20);
  }

  /// Each command goes to the stream its queue's order asks for (StreamAssignment). Commands
  /// that the stream carries out go to it at once, from the submitting thread, unless a command
  /// the stream's thread must start is still ahead of them; that thread completes the stream's
  /// commands, in submission order.
  void submit(std::shared_ptr<Command> command) override {
    std::shared_ptr<Command> started = command;
    Lane &lane = *lanes_[streams_.assign(orderKeyOf(*command))];
    {
      std::lock_guard order(lane.orderMutex);
      if (lane.stream == nullptr || lane.threadStartsAhead > 0 ||
          !startsFromAnyThread(command->payload())) {
        ++lane.threadStartsAhead;
        lane.commands->submit({std::move(command)});
        return;
      }
      CurrentContext current(*cuda_, context_);
      lane.commands->submit(startOnStream(lane, std::move(command)));
    }
    // Outside the lock: the status change runs the application's callbacks, which may enqueue.
    // (When the command has completed already, the status stays complete.)
    started->markRunning();
  }

private:
  static void releaseSharedMemory(void *owner, std::byte *pointer) {
    auto &driver = *static_cast<CudaDriver *>(owner);
    driver.residency_.released(pointer);
    CurrentContext current(*driver.cuda_, driver.context_);
    driver.cuda_->memFree(reinterpret_cast<CUdeviceptr>(pointer));
  }

  /// Page-locked host memory that every GPU addresses at its host address (unified
  /// addressing); null when there is none to spare or the addresses differ.
  AlignedStorage allocatePinnedMemory(size_t size) {
    void *host = nullptr;
    if (cuda_->memHostAlloc(&host, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) !=
        CUDA_SUCCESS)
      return nullptr;
    AlignedStorage pinned(static_cast<std::byte *>(host),
                          StorageRelease{&CudaDriver::releasePinnedMemory, this});
    CUdeviceptr device = 0;
    if (cuda_->memHostGetDevicePointer(&device, host, 0) != CUDA_SUCCESS ||
        device != reinterpret_cast<CUdeviceptr>(host))
      return nullptr;
    return pinned;
  }

  static void releasePinnedMemory(void *owner, std::byte *pointer) {
    auto &driver = *static_cast<CudaDriver *>(owner);
    CurrentContext current(*driver.cuda_, driver.context_);
    driver.cuda_->memFreeHost(pointer);
  }

  /// Whether the stream carries out `payload`: kernels without printf (whose records are read
  /// after them), buffer copies, and fills of managed memory. Not reads, writes and fills of
  /// buffers in host memory (CL_MEM_ALLOC_HOST_PTR): the host does those itself, several times
  /// faster than CUDA, which would stage the copies and reach the memory over the bus.
  static bool runsOnStream(const CommandPayload &payload) {
    if (auto *launch = std::get_if<KernelLaunch>(&payload))
      return !callsPrintf(*launch);
    if (auto *read = std::get_if<ReadBuffer>(&payload))
      return isManaged(*read->buffer);
    if (auto *write = std::get_if<WriteBuffer>(&payload))
      return isManaged(*write->buffer);
    if (auto *fill = std::get_if<FillBuffer>(&payload))
      return isManaged(*fill->buffer);
    if (auto *rect = std::get_if<CopyRect>(&payload))
      return copiesRectOnStream(*rect);
    // The copies of maps through a copy (MapBuffer, UnmapBuffer).
    if (auto *map = std::get_if<MapBuffer>(&payload))
      return map->copiesOut && isManagedBuffer(*map->buffer);
    if (auto *unmap = std::get_if<UnmapBuffer>(&payload))
      return unmap->copiesIn && isManagedBuffer(*unmap->buffer);
    return std::holds_alternative<CopyBuffer>(payload);
  }

  /// Whether the submitting thread may put `payload` on the stream: what the stream carries
  /// out, except reads (a copy to pageable host memory returns only once it is done).
  static bool startsFromAnyThread(const CommandPayload &payload) {
    auto *rect = std::get_if<CopyRect>(&payload);
    bool readsToHost = std::holds_alternative<ReadBuffer>(payload) ||
                       std::holds_alternative<MapBuffer>(payload) ||
                       (rect != nullptr && rect->direction == CopyRect::Direction::BufferToHost);
    return runsOnStream(payload) && !readsToHost;
  }

  static bool callsPrintf(const KernelLaunch &launch) {
    return static_cast<const CudaKernel &>(*launch.deviceKernel).printfCalls() != nullptr;
  }

  /// Puts `command` on the stream between its events (the context being current): a Started
  /// item, or a Failed one.
  CommandThread::Item startOnStream(Lane &lane, std::shared_ptr<Command> command) {
    CommandThread::Item item{std::move(command), CommandThread::Item::State::Started};
    cl_int status = CL_OUT_OF_RESOURCES;
    if (item.command->event().profilingEnabled()) {
      // Timed: events right around the command.
      item.start = events_.acquire(true);
      item.end = events_.acquire(true);
      if (item.start != nullptr && item.end != nullptr &&
          cuda_->eventRecord(item.start, lane.stream) == CUDA_SUCCESS) {
        status = enqueueOnStream(item.command->payload(), lane.stream);
        if (status == CL_COMPLETE && cuda_->eventRecord(item.end, lane.stream) != CUDA_SUCCESS)
          status = CL_OUT_OF_RESOURCES;
      }
    } else {
      // The command thread records the event that tells its end (completeTogether()): the
      // submitting thread, which paces back-to-back launches, makes one driver call.
      status = enqueueOnStream(item.command->payload(), lane.stream);
    }
    if (status != CL_COMPLETE) {
      releaseEvents(item);
      item.state = CommandThread::Item::State::Failed;
      item.failure = status;
    }
    return item;
  }

  /// Puts a kernel launch (without printf), a copy or a fill on the stream.
  cl_int enqueueOnStream(CommandPayload &payload, CUstream stream) {
    if (auto *launch = std::get_if<KernelLaunch>(&payload))
      return start(*launch, 0, stream);
    if (auto *read = std::get_if<ReadBuffer>(&payload))
      return copy(read->destination, read->buffer->data() + read->offset, read->size, stream);
    if (auto *write = std::get_if<WriteBuffer>(&payload))
      return copy(write->buffer->data() + write->offset, write->source, write->size, stream);
    if (auto *between = std::get_if<CopyBuffer>(&payload))
      return copy(between->destination->data() + between->destinationOffset,
                  between->source->data() + between->sourceOffset, between->size, stream);
    if (auto *rect = std::get_if<CopyRect>(&payload))
      return copy(*rect, stream);
    if (auto *map = std::get_if<MapBuffer>(&payload))
      return copy(map->mappedPointer, map->buffer->data() + map->offset, map->size, stream);
    if (auto *unmap = std::get_if<UnmapBuffer>(&payload))
      return copy(unmap->buffer->data() + unmap->offset, unmap->mappedPointer, unmap->size, stream);
    if (auto *fill = std::get_if<FillBuffer>(&payload)) {
      std::byte *target = fill->buffer->data() + fill->offset;
      residency_.moveToDevice(target, fill->size, stream);
      return fills_.fill(target, fill->size, fill->pattern, stream) ? CL_COMPLETE
                                                                    : CL_OUT_OF_RESOURCES;
    }
    return CL_INVALID_OPERATION;
  }

  /// On the command thread: the commands submitted since the last call, in submission order.
  void finish(Lane &lane, std::vector<CommandThread::Item> &batch) {
    CurrentContext current(*cuda_, context_);
    // Started commands without events of their own are completed together, by one event
    // recorded behind the last of them.
    std::vector<CommandThread::Item *> unmarked;
    for (CommandThread::Item &item : batch) {
      if (item.state == CommandThread::Item::State::Started && item.end == nullptr) {
        unmarked.push_back(&item);
        continue;
      }
      completeTogether(lane, unmarked);
      finish(lane, item);
    }
    completeTogether(lane, unmarked);
  }

  /// Records one event behind `items` (started, unprofiled) and completes them when it passes.
  void completeTogether(Lane &lane, std::vector<CommandThread::Item *> &items) {
    if (items.empty())
      return;
    CUevent end = events_.acquire(false);
    bool recorded = end != nullptr && cuda_->eventRecord(end, lane.stream) == CUDA_SUCCESS;
    bool done = recorded ? cuda_->eventSynchronize(end) == CUDA_SUCCESS : synchronize(lane.stream);
    events_.release(end, false);
    for (CommandThread::Item *item : items)
      completeCommand(lane, *item->command, done ? CL_COMPLETE : CL_OUT_OF_RESOURCES);
    items.clear();
  }

  /// The end of a command of `lane`'s stream.
  void completeCommand(Lane &lane, Command &command, cl_int status) {
    streams_.finished(lane.index, orderKeyOf(command));
    command.complete(status);
  }

  /// One command, its context current.
  void finish(Lane &lane, CommandThread::Item &item) {
    switch (item.state) {
    case CommandThread::Item::State::Failed:
      completeCommand(lane, *item.command, item.failure);
      return;
    case CommandThread::Item::State::Started:
      complete(lane, item);
      return;
    case CommandThread::Item::State::ToStart:
      break;
    }
    cl_int status = lane.stream != nullptr ? startHere(lane, item) : CL_OUT_OF_RESOURCES;
    {
      std::lock_guard order(lane.orderMutex);
      --lane.threadStartsAhead;
    }
    if (item.state == CommandThread::Item::State::Started)
      complete(lane, item);
    else
      completeCommand(lane, *item.command, status);
  }

  /// Waits for a started command, reads its times, and completes it (on the command thread).
  void complete(Lane &lane, CommandThread::Item &item) {
    if (item.end == nullptr) {
      std::vector<CommandThread::Item *> alone{&item};
      completeTogether(lane, alone);
      return;
    }
    cl_int status =
        cuda_->eventSynchronize(item.end) == CUDA_SUCCESS ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
    if (status == CL_COMPLETE && item.start != nullptr) {
      std::lock_guard clockUse(clockMutex_);
      cl_ulong start = clock_.hostTime(item.start), end = clock_.hostTime(item.end);
      if (start != 0 && end != 0)
        item.command->event().setDeviceExecutionTimes(start, end);
    }
    releaseEvents(item);
    completeCommand(lane, *item.command, status);
  }

  void releaseEvents(CommandThread::Item &item) {
    bool timed = item.command->event().profilingEnabled();
    events_.release(std::exchange(item.start, nullptr), true);
    events_.release(std::exchange(item.end, nullptr), timed);
  }

  /// Starts a command on the command thread, after every command submitted before it has been
  /// started. Commands of the stream become Started items; commands the host carries out run
  /// to the end here (returning their status) once the stream has finished what is before them.
  cl_int startHere(Lane &lane, CommandThread::Item &item) {
    item.command->markRunning();
    CommandPayload &payload = item.command->payload();
    if (auto *launch = std::get_if<KernelLaunch>(&payload);
        launch != nullptr && callsPrintf(*launch))
      return runWithPrintf(*launch, lane.stream);
    if (runsOnStream(payload)) {
      item = startOnStream(lane, std::move(item.command));
      return item.failure;
    }
    moveForHost(payload, lane.stream);
    if (!synchronize(lane.stream))
      return CL_OUT_OF_RESOURCES;
    // Everything else works on the memory as the host sees it.
    cl_int status = executeHostCommand(payload);
    noteHostAccess(payload);
    return status;
  }

  /// Puts on `stream` the moves of managed memory that the host command `payload` asks for: the
  /// mapped bytes to the host, or migrated objects where clEnqueueMigrateMemObjects sends them.
  void moveForHost(CommandPayload &payload, CUstream stream) {
    // (A map through a copy leaves the object's bytes where they are.)
    if (auto *map = std::get_if<MapBuffer>(&payload);
        map != nullptr && isManaged(*map->buffer) &&
        map->mappedPointer == map->buffer->data() + map->offset)
      residency_.moveToHost(map->buffer->data() + map->offset, map->size, stream);
    if (auto *migration = std::get_if<MigrateMemory>(&payload))
      for (const Ref<MemObject> &memory : migration->memObjects) {
        if (!isManaged(*memory))
          continue;
        if (migration->toHost)
          residency_.moveToHost(memory->data(), memory->size(), stream);
        else
          residency_.moveToDevice(memory->data(), memory->size(), stream);
      }
  }

  /// Remembers the managed memory that the host command `payload` touched without moving it
  /// first, so that the next kernel to use it brings it back in one move.
  void noteHostAccess(CommandPayload &payload) {
    auto touched = [&](const MemObject *memory) {
      if (memory != nullptr && isManaged(*memory))
        residency_.touchedByHost(memory->data(), memory->size());
    };
    if (auto *copy = std::get_if<CopyRect>(&payload)) {
      touched(copy->source.get());
      touched(copy->destination.get());
    } else if (auto *fill = std::get_if<FillImage>(&payload)) {
      touched(fill->image.get());
    } else if (auto *native = std::get_if<NativeKernel>(&payload)) {
      for (auto &[offset, memory] : native->memLocations)
        touched(memory.get());
    }
  }

  /// Runs a launch whose kernel calls printf, and prints its records.
  cl_int runWithPrintf(KernelLaunch &launch, CUstream stream) {
    const auto &kernel = static_cast<const CudaKernel &>(*launch.deviceKernel);
    size_t capacity = info_.printfBufferSize;
    PrintfOutput output(
        allocateSharedMemory(PrintfOutput::storageSize(capacity), MemoryPlacement::Device),
        capacity);
    cl_int status = start(launch, reinterpret_cast<uint64_t>(output.buffer()), stream);
    if (status == CL_COMPLETE && !synchronize(stream))
      status = CL_OUT_OF_RESOURCES;
    if (status == CL_COMPLETE)
      output.write(*kernel.printfCalls());
    return status;
  }

  /// Puts the CUDA launches of `launch` on `stream` (the current context being the GPU's).
  cl_int start(KernelLaunch &launch, uint64_t printfBuffer, CUstream stream) {
    const auto &kernel = static_cast<const CudaKernel &>(*launch.deviceKernel);
    std::array<uint64_t, 3> groups = workGroupCounts(launch.range);
    if (groups[0] * groups[1] * groups[2] == 0)
      return CL_COMPLETE;
    LaunchParams params{};
    for (int axis = 0; axis < 3; ++axis) {
      params.globalOffset[axis] = launch.range.offset[axis];
      params.globalSize[axis] = launch.range.global[axis];
      params.enqueuedLocalSize[axis] = launch.range.local[axis];
      params.numGroups[axis] = groups[axis];
    }
    params.workDim = launch.range.workDim;
    for (const LaunchMemObject &named : launch.arguments.memObjects)
      residency_.moveToDevice(named.memory->data(), named.memory->size(), stream);
    if (cl_int status = prepareImages(launch, stream); status != CL_COMPLETE)
      return status;
    std::array<std::byte, kMinimumBlockSize> noArguments{};
    void *block = launch.arguments.block.size() >= noArguments.size()
                      ? launch.arguments.block.data()
                      : noArguments.data();
    uint64_t dynamicShared =
        compiler::localArgumentBytes(launch.arguments.localMemorySize, kernel.staticLocalBytes());
    params.printfBuffer = printfBuffer;
    // A CUDA launch has one block shape: one launch per kind of work-group.
    for (const WorkGroupKind &kind : workGroupKinds(launch.range)) {
      for (int axis = 0; axis < 3; ++axis)
        params.firstGroup[axis] = kind.firstGroup[axis];
      void *parameters[] = {block, &params};
      auto dim = [](uint64_t size) { return static_cast<unsigned>(size); };
      CUresult result = cuda_->launchKernel(
          kernel.function(), dim(kind.count[0]), dim(kind.count[1]), dim(kind.count[2]),
          dim(kind.localSize[0]), dim(kind.localSize[1]), dim(kind.localSize[2]),
          static_cast<unsigned>(dynamicShared), stream, parameters, nullptr);
      if (result != CUDA_SUCCESS)
        return CL_OUT_OF_RESOURCES;
    }
    return CL_COMPLETE;
  }

  /// Gives each image argument of `launch` the GPU's descriptor in place of the host's, and puts
  /// the refresh of the textures of those a kernel may sample (read_only ones) on the stream.
  cl_int prepareImages(KernelLaunch &launch, CUstream stream) {
    const std::vector<compiler::KernelArgInfo> &args = launch.kernel->info().args;
    for (const LaunchMemObject &named : launch.arguments.memObjects) {
      const compiler::KernelArgInfo &arg = args[named.argument];
      if (arg.kind != compiler::ArgKind::Image)
        continue;
      std::shared_ptr<DeviceImage> image = imageOf(*named.memory);
      if (image == nullptr)
        return CL_MEM_OBJECT_ALLOCATION_FAILURE;
      const ImageKernelDescriptor *descriptor = image->kernelDescriptor();
      std::memcpy(launch.arguments.block.data() + arg.blockOffset, &descriptor, sizeof descriptor);
      bool sampled = arg.accessQualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY;
      if (sampled && !image->refreshTextures(stream))
        return CL_OUT_OF_RESOURCES;
    }
    return CL_COMPLETE;
  }

  /// This GPU's image for `memory`, made on its first use (the context being current).
  std::shared_ptr<DeviceImage> imageOf(MemObject &memory) {
    return std::static_pointer_cast<DeviceImage>(memory.deviceState(
        this, [&] { return std::shared_ptr<void>(DeviceImage::create(cuda_, context_, memory)); }));
  }

  /// Puts a copy on the stream, for the GPU's copy engines (managed pages stay where they are).
  cl_int copy(void *destination, const void *source, size_t size, CUstream stream) {
    if (size == 0)
      return CL_COMPLETE;
    return cuda_->memcpyAsync(reinterpret_cast<CUdeviceptr>(destination),
                              reinterpret_cast<CUdeviceptr>(source), size, stream) == CUDA_SUCCESS
               ? CL_COMPLETE
               : CL_OUT_OF_RESOURCES;
  }

  /// Puts a rectangle copy that copiesRectOnStream() accepts on the stream.
  cl_int copy(CopyRect &rect, CUstream stream) {
    if (rect.region[0] == 0 || rect.region[1] == 0 || rect.region[2] == 0)
      return CL_COMPLETE;
    auto *host = static_cast<std::byte *>(rect.hostPointer);
    RectSide source =
        rectSide(rect.source ? rect.source->data() : host, rect.sourceRect, rect.region);
    RectSide destination = rectSide(rect.destination ? rect.destination->data() : host,
                                    rect.destinationRect, rect.region);
    CUDA_MEMCPY3D copy{};
    copy.srcMemoryType = rect.source ? CU_MEMORYTYPE_UNIFIED : CU_MEMORYTYPE_HOST;
    copy.srcDevice = reinterpret_cast<CUdeviceptr>(source.base);
    copy.srcHost = source.base;
    copy.srcPitch = source.rowPitch;
    copy.srcHeight = source.rowsPerSlice;
    copy.dstMemoryType = rect.destination ? CU_MEMORYTYPE_UNIFIED : CU_MEMORYTYPE_HOST;
    copy.dstDevice = reinterpret_cast<CUdeviceptr>(destination.base);
    copy.dstHost = destination.base;
    copy.dstPitch = destination.rowPitch;
    copy.dstHeight = destination.rowsPerSlice;
    copy.WidthInBytes = rect.region[0];
    copy.Height = rect.region[1];
    copy.Depth = rect.region[2];
    return cuda_->memcpy3DAsync(&copy, stream) == CUDA_SUCCESS ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
  }

  /// Waits until `stream` has done everything put on it.
  bool synchronize(CUstream stream) { return cuda_->streamSynchronize(stream) == CUDA_SUCCESS; }

  CodeGeneratorHandle<PtxCompiler> ptxCompiler_;
  std::shared_ptr<const CudaLibrary> cuda_;
  CUdevice device_;
  CUcontext context_;
  GpuProperties properties_;
  DeviceInfo info_;
  compiler::TargetDescription target_;
  EventPool events_{*cuda_};
  std::mutex clockMutex_; // the command threads read times through one clock
  EventClock clock_{*cuda_};
  StreamAssignment streams_{kStreams};
  ManagedResidency residency_;
  DeviceFill fills_{*cuda_, context_};
  // Last, so destroyed first: each lane's thread stops before what it uses goes.
  std::vector<std::unique_ptr<Lane>> lanes_;
};

} // namespace

std::vector<std::unique_ptr<DeviceDriver>> createCudaDrivers(CompilerLoader &compiler) {
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  std::shared_ptr<const CudaLibrary> cuda = CudaLibrary::open();
  if (cuda == nullptr)
    return drivers;
  int count = 0;
  if (cuda->deviceGetCount(&count) != CUDA_SUCCESS)
    return drivers;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    CUcontext context = nullptr;
    // The primary context: the one the CUDA runtime of the application would use too, so
    // memory and modules are shared with it rather than duplicated.
    if (cuda->deviceGet(&device, ordinal) != CUDA_SUCCESS ||
        cuda->primaryCtxRetain(&context, device) != CUDA_SUCCESS)
      continue;
    drivers.push_back(std::make_unique<CudaDriver>(CodeGeneratorHandle<PtxCompiler>(compiler), cuda,
                                                   ordinal, device, context));
  }
  return drivers;
}

} // namespace kiln::cuda
