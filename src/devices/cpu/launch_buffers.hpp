// What the CPU device's code generation takes from the buffers a launch names: their sizes,
// for the choice of streaming stores (WorkGroupShape::streamingStores), and whether reads may run a
// little past their ends (indirect prefetches). The runtime gives every device only the buffers
// themselves; these sums matter to the CPU device alone.
#pragma once

#include "runtime/scheduling/command.hpp"

#include <cstdint>

namespace kiln::cpu {

struct LaunchBuffers {
  uint64_t outputBytes = 0; // the size of the buffers the kernel only writes (onlyWritten)
  uint64_t bytes = 0;       // the size of all the buffers it names
  /// Every buffer it names has read slack (MemObject::hasReadSlack). The CPU device then lets
  /// code read a little past any pointer argument's end, so a pointer argument that is not a
  /// buffer (shared virtual memory, once a device supports it) must clear this unless its
  /// allocation has the slack too.
  bool haveReadSlack = true;
};

/// The buffers `launch`'s arguments name (images left out).
LaunchBuffers launchBuffersOf(const KernelLaunch &launch);

} // namespace kiln::cpu
