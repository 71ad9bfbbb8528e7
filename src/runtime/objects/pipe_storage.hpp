// A pipe's storage: the bytes of the memory object that a kernel receives for a pipe argument,
// which the builtin library's pipe functions read and write (struct KilnPipe in
// src/builtins/pipes.cl describes the same layout; the two must change together). docs/pipes.md
// says why it is a ring of slots with sequence numbers.
//
//   PipeHeader                        kPipeHeaderBytes
//   uint32_t sequence[capacity]       one per slot
//   packets[capacity]                 from dataOffset (a multiple of kPipeDataAlignment)
//
// Positions count packets modulo positionLimit, a multiple of the capacity: the packet at
// position p lies in slot p % capacity. A slot's sequence is 2p while it is free for the packet
// of position p and 2p + 1 once that packet is written; reading it frees the slot for position
// p + capacity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace kiln {

struct PipeHeader {
  uint32_t packetSize;
  uint32_t capacity; // CL_PIPE_MAX_PACKETS
  uint32_t positionLimit;
  uint32_t dataOffset;
  uint32_t unused0[12];
  uint32_t writeReserve; // the next position a writer reserves (atomic), on a line of its own
  uint32_t unused1[15];
  uint32_t readReserve; // the next position a reader reserves (atomic), on a line of its own
  uint32_t unused2[15];
};
inline constexpr size_t kPipeHeaderBytes = 192;
static_assert(sizeof(PipeHeader) == kPipeHeaderBytes, "the builtin library's KilnPipe layout");
static_assert(offsetof(PipeHeader, writeReserve) == 64 && offsetof(PipeHeader, readReserve) == 128,
              "the builtin library's KilnPipe layout");

/// Packets start at a multiple of this: the alignment of any OpenCL C type.
inline constexpr size_t kPipeDataAlignment = 128;

/// The most packets a pipe holds: positions, and sequences (twice a position, plus one), stay
/// within 32 bits.
inline constexpr uint32_t kPipeMaxCapacity = uint32_t{1} << 28;

/// Where a pipe's parts lie, for packets of `packetSize` bytes and `capacity` packets.
struct PipeLayout {
  uint32_t packetSize, capacity;
  uint32_t positionLimit; // a multiple of capacity, at least twice it, at most 2^30
  uint32_t dataOffset;
  uint64_t totalBytes;
};

/// The layout of a pipe; nothing when the capacity is 0 or more than kPipeMaxCapacity, or the
/// packet size 0.
std::optional<PipeLayout> pipeLayoutOf(uint32_t packetSize, uint32_t capacity);

/// Writes the header of `layout` into `storage` (layout.totalBytes bytes) and marks every slot
/// free for the first lap: the state kernels expect of an empty pipe.
void initializePipeStorage(std::byte *storage, const PipeLayout &layout);

} // namespace kiln
