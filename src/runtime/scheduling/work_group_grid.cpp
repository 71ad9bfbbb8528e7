//===- work_group_grid.cpp - An NDRange as work-groups ---------------------===//
#include "runtime/scheduling/work_group_grid.hpp"

namespace kiln {

std::array<uint64_t, 3> workGroupCounts(const NDRange &range) {
  std::array<uint64_t, 3> counts{};
  for (int dim = 0; dim < 3; ++dim)
    counts[dim] = (range.global[dim] + range.local[dim] - 1) / range.local[dim];
  return counts;
}

WorkGroupKinds workGroupKinds(const NDRange &range) {
  WorkGroupKinds kinds;
  for (unsigned edges = 0; edges < 8; ++edges) {
    WorkGroupKind kind;
    kind.edges = edges;
    bool empty = false;
    for (int dim = 0; dim < 3; ++dim) {
      uint64_t full = range.global[dim] / range.local[dim];
      uint64_t rest = range.global[dim] % range.local[dim];
      bool edge = (edges >> dim) & 1;
      kind.count[dim] = edge ? (rest != 0 ? 1 : 0) : full;
      kind.localSize[dim] = edge ? rest : range.local[dim];
      kind.firstGroup[dim] = edge ? full : 0;
      empty |= kind.count[dim] == 0;
    }
    if (!empty)
      kinds.kinds[kinds.size++] = kind;
  }
  return kinds;
}

} // namespace kiln
