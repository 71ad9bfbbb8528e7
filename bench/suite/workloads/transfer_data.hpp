// What the workloads that move data between the host and a device share: how many 32-bit words
// they move, their input, and the in-place update some of them run between moving the data in
// and out (data[i] = data[i] * 3 + i), with the same step on the host for the reference.
#pragma once

#include "../workload.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

/// 64 MiB of words, 16 KiB at the tiny scale.
inline size_t transferWordCount(Scale scale) {
  return scale == Scale::Tiny ? 4096 : size_t{1} << 24;
}

/// Distinct words (a multiplicative hash of the index), so a misplaced word shows.
inline std::vector<uint32_t> transferInput(Scale scale) {
  std::vector<uint32_t> words(transferWordCount(scale));
  for (size_t i = 0; i < words.size(); ++i)
    words[i] = static_cast<uint32_t>(i * 2654435761u);
  return words;
}

inline constexpr const char *kInPlaceUpdateSource = R"(
  kernel void update(global uint *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3u + (uint)i;
  })";

inline uint32_t updatedWord(uint32_t word, size_t index) {
  return word * 3u + static_cast<uint32_t>(index);
}

} // namespace bench
