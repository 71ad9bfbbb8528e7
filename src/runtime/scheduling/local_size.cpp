#include "runtime/scheduling/local_size.hpp"

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

size_t groupCount(unsigned workDim, const std::array<size_t, 3> &global,
                  const std::array<size_t, 3> &local) {
  size_t count = 1;
  for (unsigned dim = 0; dim < workDim; ++dim)
    count *= global[dim] / local[dim];
  return count;
}

} // namespace

std::array<size_t, 3> chooseLocalSize(unsigned workDim, const std::array<size_t, 3> &global,
                                      const LocalSizeLimits &limits) {
  std::array<size_t, 3> local{1, 1, 1};
  size_t budget = std::min(limits.targetItems, limits.maxWorkGroupSize);
  for (unsigned dim = 0; dim < workDim; ++dim) {
    if (global[dim] == 0)
      continue;
    local[dim] = largestDivisorAtMost(global[dim], std::min(budget, limits.maxWorkItemSizes[dim]));
    budget /= local[dim];
  }
  // Keep several groups per compute unit: shrink the largest dimension while there are too
  // few groups.
  size_t wanted = size_t{limits.computeUnits} * 4;
  while (groupCount(workDim, global, local) < wanted) {
    unsigned widest = 0;
    for (unsigned dim = 1; dim < workDim; ++dim)
      if (local[dim] > local[widest])
        widest = dim;
    if (local[widest] <= 1)
      break;
    local[widest] = largestDivisorAtMost(global[widest], local[widest] - 1);
  }
  return local;
}

} // namespace kiln
