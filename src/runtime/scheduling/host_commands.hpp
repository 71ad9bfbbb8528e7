// The memory commands (read, write, copy, fill, rectangles, native kernels) carried out on host
// memory, where every buffer lives: the CPU device uses them directly, and a GPU device uses them
// for memory it shares with the host.
#pragma once

#include "runtime/scheduling/command.hpp"

#include <optional>
#include <span>

namespace kiln {

/// A command that moves or writes one contiguous range of bytes (read, write, copy, fill, and the
/// copies of maps and unmaps). Its pieces are independent, so a device may carry them out on
/// several threads at once.
struct ByteTransfer {
  /// Piece boundaries are multiples of this, which every fill pattern's size divides.
  static constexpr size_t kPieceAlignment = 4096;

  std::byte *destination = nullptr;
  const std::byte *source = nullptr;    // null for a fill
  std::span<const std::byte> pattern{}; // a fill's pattern
  size_t size = 0;
  /// Whether its stores bypass the caches (streaming_stores.hpp): the device's choice.
  bool streaming = false;

  /// Carries out bytes [begin, end) of the transfer; `begin` is a multiple of kPieceAlignment.
  void runPiece(size_t begin, size_t end) const;
};

/// The payload as one contiguous transfer, if it is one: not for copies whose ranges overlap,
/// which must move as a whole, nor for maps and unmaps that copy nothing.
std::optional<ByteTransfer> byteTransferOf(CommandPayload &payload);

/// Carries out any payload except a kernel launch. Returns CL_COMPLETE or an error.
cl_int executeHostCommand(CommandPayload &payload);

} // namespace kiln
