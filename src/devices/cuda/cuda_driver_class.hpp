// The driver of one NVIDIA GPU, the class that cuda_driver.hpp's createCudaDrivers() makes.
// Its members are defined by concern, one file each:
// - cuda_driver.cpp: construction, what the device is, its programs and its memory;
// - cuda_driver_launch.cpp: kernel launches (images, the printf buffer, the CUDA launches);
// - cuda_driver_memory_commands.cpp: where each command runs, and the memory commands and
//   transfers that go on a stream or move managed memory around the host's commands;
// - cuda_driver_lanes.cpp: submission to the streams, and the completion of their commands on
//   each stream's command thread;
// - cuda_driver_command_buffers.cpp: command buffers as CUDA graphs.
#pragma once

#include "devices/cuda/command_thread.hpp"
#include "devices/cuda/cuda_device_info.hpp"
#include "devices/cuda/cuda_library.hpp"
#include "devices/cuda/device_fill.hpp"
#include "devices/cuda/event_clock.hpp"
#include "devices/cuda/event_pool.hpp"
#include "devices/cuda/managed_residency.hpp"
#include "devices/cuda/ptx_compiler.hpp"
#include "devices/cuda/stream_assignment.hpp"
#include "runtime/device_driver.hpp"
#include "runtime/objects/compiler_loader.hpp"
#include "runtime/scheduling/command.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace kiln::cuda {

class DeviceImage;

class CudaDriver final : public DeviceDriver {
public:
  CudaDriver(CodeGeneratorHandle<PtxCompiler> ptxCompiler, std::shared_ptr<const CudaLibrary> cuda,
             int ordinal, CUdevice device, CUcontext context);

  const DeviceInfo &info() const override { return info_; }
  const compiler::TargetDescription &compilerTarget() const override { return target_; }

  std::unique_ptr<DeviceProgram> loadProgram(const compiler::Bitcode &module,
                                             const compiler::ProgramInfo &info, bool optimize,
                                             std::string &error) override;
  std::unique_ptr<DeviceProgram> loadSerializedProgram(std::span<const std::byte> bytes,
                                                       const compiler::Bitcode &,
                                                       const compiler::ProgramInfo &info,
                                                       bool) override;
  std::string codeIdentity() const override;

  bool hasOwnMemory() const override { return true; }
  AlignedStorage allocateSharedMemory(size_t size, MemoryPlacement placement) override;

  bool keepsSubmissionOrder() const override { return true; }
  std::chrono::microseconds hostWaitPollTime() const override {
    return std::chrono::milliseconds(20);
  }
  /// Counts the host's waits: the stream threads complete what they hold at once when one began
  /// since their last batch (CommandThread).
  void runReadyWorkWhileWaiting(const Event &) override {
    hostWaits_.fetch_add(1, std::memory_order_release);
  }

  /// Each command goes to the stream its queue's order asks for (StreamAssignment). Commands
  /// that the stream carries out go to it at once, from the submitting thread, unless a command
  /// the stream's thread must start is still ahead of them; that thread completes the stream's
  /// commands, in submission order.
  void submit(std::shared_ptr<Command> command) override;

  /// A CUDA graph of the commands, captured from the stream operations their enqueues make,
  /// when all of them are carried out by the stream; null otherwise.
  std::unique_ptr<PreparedSequence> prepareSequence(const RecordedCommands &commands) override;
  /// One cuGraphLaunch on the stream of the run's queue, which completes the run as it
  /// completes any of its commands.
  void submitPrepared(const std::shared_ptr<Command> &command,
                      std::shared_ptr<const RecordedCommands> commands,
                      const PreparedSequence &prepared) override;

private:
  /// How many streams a GPU's commands are spread over: enough for a few queues, or the
  /// independent commands of an out-of-order queue, to run side by side.
  static constexpr size_t kStreams = 4;
  /// Unfinished commands on a stream past which the lane's starter puts the next ones on it
  /// (putOnLane): tens of microseconds of small kernels, longer than the starter takes to wake.
  static constexpr size_t kUnfinishedBeforeStarter = 16;

  /// One CUDA stream of a GPU, and the thread that completes its commands in the order they
  /// were put on it.
  struct Lane {
    size_t index = 0;
    CUstream stream = nullptr; // launches come from any thread: CUDA streams allow that
    std::mutex orderMutex;     // keeps the stream in submission order
    int threadStartsAhead = 0; // submitted commands the command thread has yet to start
    int starterAhead = 0;      // submitted commands the starter has yet to hand on
    std::unique_ptr<CommandThread> commands;
    /// Starts commands while the GPU is busy, and hands them to `commands` (declared after it:
    /// it is stopped first, and flushes what it holds into it).
    std::unique_ptr<CommandThread> starter;
  };

  // Memory (cuda_driver.cpp).
  static void releaseSharedMemory(void *owner, std::byte *pointer);
  /// Page-locked host memory that every GPU addresses at its host address (unified
  /// addressing); null when there is none to spare or the addresses differ.
  AlignedStorage allocatePinnedMemory(size_t size);
  static void releasePinnedMemory(void *owner, std::byte *pointer);

  // Kernel launches (cuda_driver_launch.cpp).
  /// Whether the host has work when the launch has finished: a kernel that calls printf (its
  /// records to print) or enqueues kernels (its arena's records to launch). The command thread
  /// runs such a launch and waits for it.
  static bool needsHostAfterwards(const KernelLaunch &launch);
  /// Runs `item`'s launch (one that needsHostAfterwards) and prints its printf records; leaves
  /// an arena for device-side enqueue in the item.
  cl_int runAndFollowUp(CommandThread::Item &item, CUstream stream);
  /// Puts the CUDA launches of `launch` on `stream` (the current context being the GPU's).
  cl_int start(KernelLaunch &launch, uint64_t printfBuffer, uint64_t enqueueArena, CUstream stream);
  /// Gives each image argument of `launch` the GPU's descriptor in place of the host's, and
  /// puts the refresh of the textures of those a kernel may sample (read_only ones) on the
  /// stream.
  cl_int prepareImages(KernelLaunch &launch, CUstream stream);
  /// This GPU's image for `memory`, made on its first use (the context being current).
  std::shared_ptr<DeviceImage> imageOf(MemObject &memory);

  // Command buffers (cuda_driver_command_buffers.cpp).
  /// Whether a graph can hold `payload`'s stream operations as the enqueue makes them, to be
  /// launched again and again: what the submitting thread may put on a stream, except kernels
  /// with images (their descriptors and textures are refreshed at each launch).
  static bool capturable(const CommandPayload &payload);

  // Memory commands (cuda_driver_memory_commands.cpp).
  /// Whether the stream carries out `payload`: kernels without printf (whose records are read
  /// after them), buffer copies, and fills of managed memory. Not reads, writes and fills of
  /// buffers in host memory (CL_MEM_ALLOC_HOST_PTR): the host does those itself, several times
  /// faster than CUDA, which would stage the copies and reach the memory over the bus.
  static bool runsOnStream(const CommandPayload &payload);
  /// Whether the submitting thread may put `payload` on the stream: what the stream carries
  /// out, except reads (a copy to pageable host memory returns only once it is done).
  static bool startsFromAnyThread(const CommandPayload &payload);
  /// Puts a kernel launch (without printf), a copy or a fill on the stream, once the memory it
  /// uses is on the GPU (moveUsedMemoryToDevice).
  cl_int enqueueOnStream(CommandPayload &payload, CUstream stream);
  /// Puts on `stream` the moves to the GPU of the managed memory that `payload`, a command the
  /// stream carries out, uses and the host may hold.
  void moveUsedMemoryToDevice(const CommandPayload &payload, CUstream stream);
  /// Puts a copy on the stream, for the GPU's copy engines (managed pages stay where they are).
  cl_int copy(void *destination, const void *source, size_t size, CUstream stream);
  /// Puts a rectangle copy that copiesRectOnStream() accepts on the stream.
  cl_int copy(CopyRect &rect, CUstream stream);
  /// Fills managed memory on the GPU (where moveUsedMemoryToDevice has moved it).
  cl_int fillOnDevice(std::byte *target, size_t size, std::span<const std::byte> pattern,
                      CUstream stream);
  /// Puts on `stream` the moves of managed memory that the host command `payload` asks for:
  /// the mapped bytes to the host, or migrated objects where clEnqueueMigrateMemObjects sends
  /// them.
  void moveForHost(CommandPayload &payload, CUstream stream);
  /// Remembers the managed memory that the host command `payload` touched without moving it
  /// first, so that the next kernel to use it brings it back in one move.
  void noteHostAccess(CommandPayload &payload);

  // The streams' lanes (cuda_driver_lanes.cpp).
  /// Hands `item` to its lane: puts it on the stream at once where it may be (true), or leaves
  /// it to the lane's thread.
  bool putOnLane(CommandThread::Item item);
  /// Puts `item`'s command on the stream between its events (the context being current): a
  /// Started item, or a Failed one.
  CommandThread::Item startOnStream(Lane &lane, CommandThread::Item item);
  /// Puts `item`'s work on the stream: its graph, or its command, after the moves of the
  /// memory they use.
  cl_int enqueue(CommandThread::Item &item, CUstream stream);
  /// Whether the lane's starter may put `item` on the stream: a command of the stream, without
  /// events of its own.
  static bool startsAhead(const CommandThread::Item &item);
  /// On the lane's starter: puts each item of `batch` that startsAhead on the stream, and hands
  /// every item, in order, to the command thread.
  void startAhead(Lane &lane, std::vector<CommandThread::Item> &batch);
  /// On the command thread: the commands submitted since the last call, in submission order.
  void finish(Lane &lane, std::vector<CommandThread::Item> &batch);
  /// Records one event behind `items` (started, unprofiled) and completes them when it passes.
  void completeTogether(Lane &lane, std::vector<CommandThread::Item *> &items);
  /// The end of a command of `lane`'s stream.
  void completeCommand(Lane &lane, Command &command, cl_int status);
  /// The same for an item the thread ran: after its enqueued kernels, if it has any.
  void completeCommand(Lane &lane, CommandThread::Item &item, cl_int status);
  /// One command, its context current.
  void finish(Lane &lane, CommandThread::Item &item);
  /// Waits for a started command, reads its times, and completes it (on the command thread).
  void complete(Lane &lane, CommandThread::Item &item);
  void releaseEvents(CommandThread::Item &item);
  /// Starts a command on the command thread, after every command submitted before it has been
  /// started. Commands of the stream become Started items; commands the host carries out run
  /// to the end here (returning their status) once the stream has finished what is before them.
  cl_int startHere(Lane &lane, CommandThread::Item &item);
  /// Waits until `stream` has done everything put on it.
  bool synchronize(CUstream stream);

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
  /// Host threads that began waiting for this GPU's commands, ever.
  std::atomic<uint64_t> hostWaits_{0};
};

} // namespace kiln::cuda
