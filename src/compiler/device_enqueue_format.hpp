// Device-side enqueue: how a kernel's enqueue_kernel and enqueue_marker calls, and the device
// events it makes, reach the host. Each launch of a kernel that uses them gets an arena in
// memory the kernel and the host both address; the builtin library (builtins/device_enqueue.cl,
// whose structs mirror these) appends a record for each enqueue, and once every work-group of
// the launch has finished, the runtime (runtime/scheduling/device_enqueue.hpp) launches the
// records' kernels in the order their events ask. Every device uses this one format; no LLVM
// types.
//
// Why after the parent: OpenCL C lets a child start at the earliest when its parent's work-group
// (CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP) or whole NDRange (WAIT_KERNEL) has finished, and promises
// nothing earlier for NO_WAIT; a parent may never wait for its children. Starting every child
// when its parent has finished keeps all three promises and lets one piece of host code serve
// every device. A device that can start kernels itself (the GPU) does so for the enqueues that
// need no host (DeviceLaunchRequest below) and leaves records for the others.
#pragma once

#include <atomic>
#include <cstdint>

namespace kiln::compiler {

/// What a kernel may ask of a block kernel before enqueuing it (get_kernel_work_group_size and
/// the others), for each kernel of the program, by index.
struct BlockKernelLimits {
  uint64_t maxWorkGroupSize;
  uint64_t preferredWorkGroupSizeMultiple;
  uint64_t subGroupSize;
  /// The device's CL_DEVICE_MAX_WORK_ITEM_SIZES, which a local size must respect.
  uint64_t maxWorkItemSizes[3];
};
static_assert(sizeof(BlockKernelLimits) == 48);

/// One device event (clk_event_t): a kernel's value of it is its index in the launch tree's
/// DeviceEventTable plus one (0 and all ones are never events).
struct DeviceEvent {
  /// A user event: CL_SUBMITTED until set_user_event_status sets it. A command's: CL_SUBMITTED
  /// until the host sets CL_COMPLETE (or an error) when the command has finished.
  int32_t status;
  uint32_t kind; // DeviceEventKind
  /// Where capture_event_profiling_info asked the command's execution times to be written (two
  /// 64-bit values) once it has finished, or 0.
  uint64_t profilingResult;
  /// A finished command's times in nanoseconds: CL_PROFILING_COMMAND_END - _START and
  /// _COMPLETE - _START (what CLK_PROFILING_COMMAND_EXEC_TIME captures).
  uint64_t executionTime;
  uint64_t completionTime;
};
static_assert(sizeof(DeviceEvent) == 32);

/// The device events of a launch from the host and of everything it enqueues, at any depth: a
/// child may wait for, or capture, an event its parent made.
struct DeviceEventTable {
  DeviceEvent *entries;
  uint32_t capacity;
  std::atomic<uint32_t> used;
};
static_assert(sizeof(DeviceEventTable) == 16);

enum class DeviceEventKind : uint32_t { Unused = 0, User = 1, Command = 2 };

enum class EnqueueRecordKind : uint32_t { Kernel = 1, Marker = 2 };

/// A record's fixed part; after it come the waited events (uint32_t each), then the sizes of
/// the block's __local arguments (uint64_t each, at an 8-byte boundary), then the block literal
/// at literalOffset.
struct EnqueueRecord {
  uint32_t size; // the whole record's bytes, a multiple of kEnqueueRecordAlignment
  uint32_t kind; // EnqueueRecordKind
  uint64_t queue;
  uint32_t flags;
  uint32_t kernel; // index in ProgramInfo::kernels plus one (a Kernel record)
  uint32_t workDim;
  uint32_t waitCount;
  uint64_t globalOffset[3];
  uint64_t globalSize[3];
  uint64_t localSize[3]; // all 0: the implementation chooses
  uint32_t returnEvent;  // device event plus one, 0 for none
  uint32_t localArgumentCount;
  uint32_t literalSize;
  uint32_t literalOffset;
  uint64_t reserved;
};
static_assert(sizeof(EnqueueRecord) == 128);

/// Records start at multiples of this, and a block literal within its record too, which covers
/// the alignment of anything a block captures (long16).
inline constexpr uint64_t kEnqueueRecordAlignment = 128;

/// The arena of one launch.
struct DeviceEnqueueArena {
  std::byte *records;
  uint64_t capacity;
  /// Bytes of `records` holding records: advanced atomically by the kernel, never past
  /// `capacity`.
  std::atomic<uint64_t> used;
  DeviceEventTable *events;
  /// get_default_queue(): the device's default device queue when the launch started, or 0.
  uint64_t defaultQueue;
  const BlockKernelLimits *kernels;
  uint64_t kernelCount;
  uint64_t reserved;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free &&
                  sizeof(std::atomic<uint64_t>) == sizeof(uint64_t) &&
                  sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
              "the library updates the arena's counters as plain atomics");
static_assert(sizeof(DeviceEnqueueArena) == 64);

/// Bytes of a block literal a DeviceLaunchRequest holds, and its __local arguments at most.
inline constexpr uint32_t kDeviceLaunchLiteralBytes = 256;
inline constexpr uint32_t kDeviceLaunchLocalArguments = 8;

/// An enqueue a device starts itself, without the host (the GPU, through CUDA's dynamic
/// parallelism): what the library writes into the buffer the device's launch primitive gives it,
/// and what the block kernel's device entry reads. Only enqueues that wait for no event and
/// return none, with work-groups that divide the NDRange, a literal and __local arguments that
/// fit, can start so; the others become records. The child shares its parent's arena (its own
/// records join the parent's, which the host reads once the whole tree has finished).
struct DeviceLaunchRequest {
  /// The block literal, first so that it has the buffer's alignment.
  std::byte literal[kDeviceLaunchLiteralBytes];
  uint64_t globalOffset[3];
  uint64_t globalSize[3];
  uint64_t localSize[3];
  /// The sizes of the block's __local arguments, which lie in the launch's local memory after
  /// the kernel's own variables, each at the next multiple of kLocalArgumentAlignment.
  uint64_t localArgumentSizes[kDeviceLaunchLocalArguments];
  DeviceEnqueueArena *arena;
  uint32_t workDim;
  uint32_t localArgumentCount;
};
static_assert(sizeof(DeviceLaunchRequest) == 408);

/// `global DeviceLaunchRequest *__kiln_device_launch_request(uint kernel, ulong groups x/y/z,
/// ulong local size x/y/z, ulong local argument bytes)`: a request buffer for launching block
/// kernel `kernel` (its index plus one) in that shape, or null when the device cannot start it
/// itself. Only code generators that answer kLaunchesOnDeviceQuery true provide it.
inline constexpr const char *kDeviceLaunchRequestPrimitive = "__kiln_device_launch_request";
/// `int __kiln_device_launch(global DeviceLaunchRequest *request, uint flags)`: starts the filled
/// request with the enqueue's CLK_ENQUEUE_FLAGS_*; 0 when the device could not.
inline constexpr const char *kDeviceLaunchPrimitive = "__kiln_device_launch";

/// `ulong __kiln_launch_default_queue(void)` and `const global BlockKernelLimits
/// *__kiln_launch_block_kernel_limits(uint kernel)` (null for no block kernel): what the arena's
/// defaultQueue and kernels say, from where a device reads them faster than the arena (the GPU:
/// its launch parameters and its own memory, where the arena is in the host's). Only code
/// generators that answer kEnqueueConstantsInLaunchQuery true provide them.
inline constexpr const char *kLaunchDefaultQueuePrimitive = "__kiln_launch_default_queue";
inline constexpr const char *kLaunchBlockKernelLimitsPrimitive =
    "__kiln_launch_block_kernel_limits";

/// The primitive through which the library finds its launch's arena: `global
/// DeviceEnqueueArena *__kiln_device_enqueue_arena(void)`, which each code generator replaces
/// by the launch's (its presence also tells that a kernel needs one).
inline constexpr const char *kDeviceEnqueueArenaPrimitive = "__kiln_device_enqueue_arena";

} // namespace kiln::compiler
