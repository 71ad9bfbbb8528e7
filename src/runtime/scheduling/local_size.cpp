#include "runtime/scheduling/local_size.hpp"

#include "runtime/device_driver.hpp"
#include "runtime/objects/device_info.hpp"

#include <algorithm>

namespace kiln {
namespace {

/// The largest divisor of `value` that is at most `limit` (at least 1).
size_t largestDivisorAtMost(size_t value, size_t limit) {
  for (size_t candidate = std::min(value, limit); candidate > 1; --candidate)
    if (value % candidate == 0)
      return candidate;
  return 1;
}

size_t ceilDivide(size_t value, size_t divisor) {
  return (value + divisor - 1) / divisor;
}

} // namespace

LocalSizeLimits LocalSizeLimits::of(const DeviceKernelInfo &kernel, const DeviceInfo &device) {
  return {kernel.maxWorkGroupSize, kernel.preferredWorkGroupItems, device.maxWorkItemSizes,
          device.maxComputeUnits, kernel.preferredWorkGroupSizeMultiple};
}

std::array<size_t, 3> chooseLocalSize(unsigned workDim, const std::array<size_t, 3> &global,
                                      const LocalSizeLimits &limits) {
  std::array<size_t, 3> local{1, 1, 1};
  size_t budget = std::min(limits.targetItems, limits.maxWorkGroupSize);
  for (unsigned dim = 0; dim < workDim; ++dim) {
    if (global[dim] == 0)
      return {1, 1, 1}; // an empty range
    local[dim] = largestDivisorAtMost(global[dim], std::min(budget, limits.maxWorkItemSizes[dim]));
    budget /= local[dim];
  }
  // Keep several groups per compute unit: shrink the last dimensions first (the first one's
  // work-items are contiguous), each straight to the size that makes enough groups.
  size_t wanted = size_t{limits.computeUnits} * 4;
  for (unsigned dim = workDim; dim-- > 0;) {
    size_t groups = 1, items = 1;
    for (unsigned other = 0; other < workDim; ++other) {
      groups *= global[other] / local[other];
      items *= local[other];
    }
    if (groups >= wanted)
      break;
    size_t groupsElsewhere = groups / (global[dim] / local[dim]);
    size_t itemsElsewhere = items / local[dim];
    // The largest size that makes enough groups, but not below the preferred multiple.
    size_t bound = std::max({global[dim] / ceilDivide(wanted, groupsElsewhere),
                             ceilDivide(limits.preferredMultiple, itemsElsewhere), size_t{1}});
    if (bound < local[dim])
      local[dim] = largestDivisorAtMost(global[dim], bound);
  }
  return local;
}

} // namespace kiln
