#include "runtime/objects/pipe_storage.hpp"

#include <algorithm>
#include <cstring>

namespace kiln {

std::optional<PipeLayout> pipeLayoutOf(uint32_t packetSize, uint32_t capacity) {
  if (packetSize == 0 || capacity == 0 || capacity > kPipeMaxCapacity)
    return std::nullopt;
  // Laps of the ring within 2^30 positions; at least two, so that a slot's "free for position
  // p + capacity" and "written at position p" never read the same.
  constexpr uint32_t kPositionRange = uint32_t{1} << 30;
  uint32_t laps = std::max<uint32_t>(2, kPositionRange / capacity);
  uint64_t sequencesEnd = kPipeHeaderBytes + uint64_t{capacity} * sizeof(uint32_t);
  uint64_t dataOffset =
      (sequencesEnd + kPipeDataAlignment - 1) / kPipeDataAlignment * kPipeDataAlignment;
  return PipeLayout{packetSize, capacity, capacity * laps, static_cast<uint32_t>(dataOffset),
                    dataOffset + uint64_t{packetSize} * capacity};
}

void initializePipeStorage(std::byte *storage, const PipeLayout &layout) {
  PipeHeader header{};
  header.packetSize = layout.packetSize;
  header.capacity = layout.capacity;
  header.positionLimit = layout.positionLimit;
  header.dataOffset = layout.dataOffset;
  std::memcpy(storage, &header, sizeof header);
  for (uint32_t slot = 0; slot < layout.capacity; ++slot) {
    uint32_t freeForFirstLap = 2 * slot;
    std::memcpy(storage + kPipeHeaderBytes + slot * sizeof(uint32_t), &freeForFirstLap,
                sizeof freeForFirstLap);
  }
}

} // namespace kiln
