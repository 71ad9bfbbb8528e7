// The contract between the CPU code generator and the CPU runtime: how a JIT-compiled
// work-group function is called. The generator (codegen/) builds LLVM IR that reads these
// structures; the runtime (cpu_device.cpp) fills them. Change both together.
#pragma once

#include "compiler/argument_block.hpp"
#include "compiler/device_enqueue_format.hpp"
#include "compiler/printf_format.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

using compiler::PrintfBuffer;

/// The same for every work-group of one NDRange.
struct LaunchParams {
  /// The kernel's argument block: values as is, buffers as addresses, __local arguments as
  /// byte offsets into WorkGroupParams::localMemory (layout: compiler/argument_block.hpp).
  const std::byte *args;
  uint64_t globalOffset[3];
  uint64_t globalSize[3];
  uint64_t enqueuedLocalSize[3];
  uint64_t numGroups[3];
  /// Bytes of WorkGroupParams::localMemory the launch uses: its __local variables and arguments.
  uint64_t localMemorySize;
  /// Bytes of WorkGroupParams::privateMemory a work-group may use.
  uint64_t privateMemorySize;
  uint32_t workDim;
  /// Null unless the kernel calls printf.
  PrintfBuffer *printfBuffer;
  /// Null unless the kernel enqueues kernels or uses device events.
  compiler::DeviceEnqueueArena *deviceEnqueueArena;
};

/// One work-group.
struct WorkGroupParams {
  uint64_t groupId[3];
  /// This group's size; smaller than the enqueued size in the last group of a dimension when
  /// the global size is not a multiple of it (non-uniform work-groups).
  uint64_t localSize[3];
  /// The group's local memory: the kernel's __local variables first, then __local arguments.
  std::byte *localMemory;
  /// Storage for values that live across barriers, JitKernel::privateBytesPerSimdGroup per SIMD
  /// group.
  std::byte *privateMemory;
  /// The stack of the thread running the group, where the work-items' private variables live
  /// when the kernel has no barrier: stackSize bytes from stackBase (its lowest address).
  const std::byte *stackBase;
  uint64_t stackSize;
  /// Where a work-group that takes turns with others (codegen/work_group/grid_stride_turns.hpp)
  /// keeps the region it goes on from: 0 on its first call, left non-zero by a call that returns
  /// at a turn, before the group has finished; the next call goes on from there.
  uint32_t *turn;
};

/// Runs every work-item of one work-group, or, for a work-group that takes turns, its work-items
/// up to their next turn (WorkGroupParams::turn).
using WorkGroupFunction = void (*)(const LaunchParams *launch, const WorkGroupParams *group);

/// The most work-groups that take turns a worker runs in step (WorkGroupParams::turn).
inline constexpr unsigned kMaxGroupsInStep = 16;

/// Alignment the runtime guarantees for localMemory, privateMemory and each __local argument.
inline constexpr size_t kLocalMemoryAlignment = 128;
static_assert(kLocalMemoryAlignment >= compiler::kLocalArgumentAlignment,
              "__local arguments are at multiples of their alignment from localMemory");

} // namespace kiln::cpu
