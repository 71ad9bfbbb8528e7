//===- work_group_grid.hpp - An NDRange as work-groups ---------------------===//
//
// How an NDRange divides into work-groups, for every device: along each dimension, full groups
// of the local size and, when the global size is not a multiple of it (OpenCL 2.0's non-uniform
// work-groups), one last, narrower group. A device that compiles or launches one shape of group
// at a time (the CPU's work-group functions, a CUDA launch's block) takes the NDRange as up to
// eight kinds of group: for each dimension, the full groups or the narrower last one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/scheduling/command.hpp"

#include <array>
#include <cstdint>

namespace kiln {

/// The work-groups of `range` along each dimension, the last of a dimension possibly narrower.
std::array<uint64_t, 3> workGroupCounts(const NDRange &range);

/// The work-groups of one shape: for each dimension, the full groups, or the last, narrower one
/// where `edges` has the dimension's bit set.
struct WorkGroupKind {
  unsigned edges = 0;
  std::array<uint64_t, 3> localSize{};  // of each of these groups
  std::array<uint64_t, 3> count{};      // of these groups along each dimension
  std::array<uint64_t, 3> firstGroup{}; // the group id of the first of them
};

/// The kinds of work-group `range` has (those with at least one group), in order of `edges`.
/// A fixed array: launches allocate nothing.
struct WorkGroupKinds {
  std::array<WorkGroupKind, 8> kinds;
  unsigned size = 0;
  const WorkGroupKind *begin() const { return kinds.data(); }
  const WorkGroupKind *end() const { return kinds.data() + size; }
};
WorkGroupKinds workGroupKinds(const NDRange &range);

} // namespace kiln
