// The local size Kiln picks when clEnqueueNDRangeKernel is given none.
#pragma once

#include <array>
#include <cstddef>

namespace kiln {

struct DeviceInfo;
struct DeviceKernelInfo;

struct LocalSizeLimits {
  size_t maxWorkGroupSize;                // the kernel's on this device
  size_t targetItems;                     // the work-group size the device prefers
  std::array<size_t, 3> maxWorkItemSizes; // the device's, per dimension
  unsigned computeUnits;                  // for keeping every core busy
  /// The kernel's preferred work-group size multiple (a GPU's warp, a CPU's vector width):
  /// work-groups are not made smaller than this for the sake of having more of them.
  size_t preferredMultiple = 1;

  /// The limits of `kernel` on `device`.
  static LocalSizeLimits of(const DeviceKernelInfo &kernel, const DeviceInfo &device);
};

/// A local size that divides the global size exactly (so it suits every program version),
/// leaves enough work-groups to keep every compute unit busy without going below the preferred
/// multiple, and is otherwise as large as is useful, preferring the first dimension (contiguous
/// work-items share cache lines and SIMD lanes).
std::array<size_t, 3> chooseLocalSize(unsigned workDim, const std::array<size_t, 3> &global,
                                      const LocalSizeLimits &limits);

} // namespace kiln
