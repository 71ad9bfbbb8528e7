//===- work_group_scratch.hpp - The work-group collectives' local memory ----===//
//
// The builtin library's work-group collective functions (work_group_collectives.cl) pass one
// value per sub-group through local memory, which OpenCL C gives a library function no way to
// declare: they ask for it with the primitive `__kiln_work_group_scratch()`, and each code
// generator places that much local memory for a kernel that calls it (the GPU as a shared
// variable, the CPU after the launch's own local memory). The size is the device's to report in
// CL_KERNEL_LOCAL_MEM_SIZE beside the kernel's own variables and arguments.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace kiln::compiler {

inline constexpr const char *kWorkGroupScratchPrimitive = "__kiln_work_group_scratch";

/// Bytes of one slot: the widest type a collective takes (long, ulong, double).
inline constexpr uint64_t kWorkGroupScratchSlotBytes = 8;

/// The scratch of a kernel whose work-groups have at most `maxWorkItems` work-items in
/// sub-groups of `subGroupWidth`: a slot per sub-group.
constexpr uint64_t workGroupScratchBytes(uint64_t maxWorkItems, uint64_t subGroupWidth) {
  uint64_t width = subGroupWidth == 0 ? 1 : subGroupWidth;
  uint64_t subGroups = (maxWorkItems + width - 1) / width;
  return (subGroups == 0 ? 1 : subGroups) * kWorkGroupScratchSlotBytes;
}

} // namespace kiln::compiler
