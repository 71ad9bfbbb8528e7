// The contract between the CUDA code generator and the CUDA runtime: how a kernel compiled to
// PTX is launched. Each OpenCL kernel becomes one PTX entry taking two parameters, both passed
// by value: the kernel's argument block (layout: compiler/argument_block.hpp, which also says
// how this device maps the work-group's local memory to static and dynamic shared memory) and
// a LaunchParams. Change the generator (codegen/kernel_entry.cpp) and the runtime together.
#pragma once

#include "compiler/work_group_scratch.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::cuda {

/// What the work-item functions read besides CUDA's own registers. One NDRange may take several
/// CUDA launches (a non-uniform last work-group along a dimension has a block shape of its own);
/// each launch says where its blocks lie in the whole range.
struct LaunchParams {
  uint64_t globalOffset[3];
  uint64_t globalSize[3];
  uint64_t enqueuedLocalSize[3];
  uint64_t numGroups[3];
  /// The OpenCL group id of this launch's first block (blockIdx 0, 0, 0).
  uint64_t firstGroup[3];
  /// The address of the launch's printf buffer (a compiler::PrintfBuffer), or 0.
  uint64_t printfBuffer;
  /// The address of the launch's device-side enqueue arena (a compiler::DeviceEnqueueArena),
  /// or 0.
  uint64_t deviceEnqueueArena;
  uint32_t workDim;
  /// 0, or the work-group's height when its y and z axes share the block's y axis: CUDA allows
  /// 64 threads along z, OpenCL a work-group as deep as it has work-items. Local id y is then
  /// tid.y % foldedHeight and z is tid.y / foldedHeight; the threads' linear order (and so the
  /// warps) are the same either way.
  uint32_t foldedHeight;
  /// get_default_queue() of a launch that enqueues (what its arena says, but read here without
  /// crossing the bus), or 0.
  uint64_t defaultQueue;
  /// The global id of the work-item at local id 0 of block 0: firstGroup × enqueuedLocalSize +
  /// globalOffset. A global id is then this plus blockIdx × enqueuedLocalSize (at most 1024, a
  /// 32-bit product widened in one instruction) plus the local id, where the three 64-bit
  /// fields cost a multiplication of 64-bit values and two more additions per axis.
  uint64_t firstItem[3];
};
static_assert(sizeof(LaunchParams) == 176);

/// Bytes the entry's argument-block parameter has at least, also for a kernel without
/// arguments (the runtime then passes zeros).
inline constexpr uint32_t kMinimumBlockSize = 8;

/// The PTX entry of the OpenCL kernel `kernelName`.
inline std::string entryName(std::string_view kernelName) {
  return "__kiln_entry_" + std::string(kernelName);
}

/// The PTX entry through which a kernel the GPU enqueues starts on the GPU itself (CUDA's dynamic
/// parallelism): its first parameter is a compiler::DeviceLaunchRequest instead of the argument
/// block, its second the LaunchParams. Only block kernels without printf have one.
inline std::string deviceEntryName(std::string_view kernelName) {
  return "__kiln_device_entry_" + std::string(kernelName);
}

/// What the GPU's PTX names when a kernel of the program starts kernels itself: the program is
/// then linked with CUDA's device runtime (libcudadevrt) to load.
inline constexpr const char *kDeviceLaunchFunction = "cudaLaunchDeviceV2";

/// The module's table of its kernels' compiler::BlockKernelLimits, in kernel order, where a
/// kernel enqueues: the driver fills it when it loads the module.
inline constexpr const char *kBlockKernelLimitsSymbol = "__kiln_block_kernel_limits";

/// Threads a block has at most on every GPU CUDA runs: the most work-items of a work-group.
inline constexpr uint64_t kMaxBlockThreads = 1024;

/// The shared variable of a kernel's work-group collectives' scratch: for blocks of
/// `requiredThreads` (reqd_work_group_size; 0 when not given, then the largest) in sub-groups of
/// `subGroupWidth`.
inline constexpr uint64_t workGroupScratchBytes(uint64_t requiredThreads, unsigned subGroupWidth) {
  return compiler::workGroupScratchBytes(requiredThreads != 0 ? requiredThreads : kMaxBlockThreads,
                                         subGroupWidth);
}

/// The symbol of the dynamic shared memory that holds the __local arguments.
inline constexpr const char *kDynamicSharedSymbol = "__kiln_dynamic_local";

} // namespace kiln::cuda
