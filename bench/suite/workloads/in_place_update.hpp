// The in-place update that the transfer workloads run between moving data in and out:
// data[i] = data[i] * 3 + i over 32-bit words, and the same step on the host for the reference.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bench {

inline constexpr const char *kInPlaceUpdateSource = R"(
  kernel void update(global uint *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3u + (uint)i;
  })";

inline uint32_t updatedWord(uint32_t word, size_t index) {
  return word * 3u + static_cast<uint32_t>(index);
}

} // namespace bench
