// How far apart two atomics must be for one thread's writes to leave the other's readers alone.
#pragma once

#include <cstddef>

namespace kiln {

/// Two 64-byte lines: Intel's cores fetch lines in aligned pairs (the spatial prefetcher), so
/// a write to either line of a pair also takes its neighbour from the cores reading it.
/// (std::hardware_destructive_interference_size is 64 with GCC, and varies with its flags.)
inline constexpr std::size_t kNoFalseSharing = 128;

} // namespace kiln
