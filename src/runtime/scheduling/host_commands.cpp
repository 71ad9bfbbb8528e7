#include "runtime/scheduling/host_commands.hpp"

#include "runtime/objects/memory.hpp"
#include "runtime/scheduling/pattern_fill.hpp"
#include "runtime/scheduling/streaming_stores.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

namespace kiln {
namespace {

/// Copies a 3-D region between two byte arrays described as rows and slices.
void copyRect(std::byte *destination, const BufferRect &destinationRect, const std::byte *source,
              const BufferRect &sourceRect, const std::array<size_t, 3> &region) {
  for (size_t slice = 0; slice < region[2]; ++slice)
    for (size_t row = 0; row < region[1]; ++row)
      std::memmove(destination + destinationRect.offsetOf(row, slice),
                   source + sourceRect.offsetOf(row, slice), region[0]);
}

/// The payloads that are contiguous transfers, as one.
struct TransferOf {
  std::optional<ByteTransfer> operator()(ReadBuffer &read) const {
    return ByteTransfer{static_cast<std::byte *>(read.destination),
                        read.buffer->data() + read.offset,
                        {},
                        read.size};
  }
  std::optional<ByteTransfer> operator()(WriteBuffer &write) const {
    return ByteTransfer{write.buffer->data() + write.offset,
                        static_cast<const std::byte *>(write.source),
                        {},
                        write.size};
  }
  std::optional<ByteTransfer> operator()(CopyBuffer &copy) const {
    std::byte *destination = copy.destination->data() + copy.destinationOffset;
    const std::byte *source = copy.source->data() + copy.sourceOffset;
    // Overlap is an application error (CL_MEM_COPY_OVERLAP) that validation may not see through
    // sub-buffers; such a copy moves as one memmove, which corrupts nothing else.
    if (destination < source + copy.size && source < destination + copy.size)
      return std::nullopt;
    return ByteTransfer{destination, source, {}, copy.size};
  }
  std::optional<ByteTransfer> operator()(FillBuffer &fill) const {
    return ByteTransfer{fill.buffer->data() + fill.offset, nullptr, fill.pattern, fill.size};
  }
  std::optional<ByteTransfer> operator()(MapBuffer &map) const {
    if (!map.copiesOut)
      return std::nullopt;
    return ByteTransfer{
        static_cast<std::byte *>(map.mappedPointer), map.buffer->data() + map.offset, {}, map.size};
  }
  std::optional<ByteTransfer> operator()(UnmapBuffer &unmap) const {
    if (!unmap.copiesIn)
      return std::nullopt;
    return ByteTransfer{unmap.buffer->data() + unmap.offset,
                        static_cast<const std::byte *>(unmap.mappedPointer),
                        {},
                        unmap.size};
  }
  std::optional<ByteTransfer> operator()(CopyMemory &copy) const {
    if (copy.destination < copy.source + copy.size && copy.source < copy.destination + copy.size)
      return std::nullopt;
    return ByteTransfer{copy.destination, copy.source, {}, copy.size};
  }
  std::optional<ByteTransfer> operator()(FillMemory &fill) const {
    return ByteTransfer{fill.destination, nullptr, fill.pattern, fill.size};
  }
  template <typename Other> std::optional<ByteTransfer> operator()(Other &) const {
    return std::nullopt;
  }
};

/// The other payloads (and copies whose ranges overlap); reads, writes and fills are always
/// contiguous transfers and never come here.
struct HostExecutor {
  cl_int operator()(KernelLaunch &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(ChildLaunches &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(ReadBuffer &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(WriteBuffer &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(FillBuffer &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(CopyBuffer &copy) const {
    std::memmove(copy.destination->data() + copy.destinationOffset,
                 copy.source->data() + copy.sourceOffset, copy.size);
    return CL_COMPLETE;
  }
  cl_int operator()(CopyRect &copy) const {
    std::byte *destination =
        copy.destination ? copy.destination->data() : static_cast<std::byte *>(copy.hostPointer);
    const std::byte *source =
        copy.source ? copy.source->data() : static_cast<const std::byte *>(copy.hostPointer);
    copyRect(destination, copy.destinationRect, source, copy.sourceRect, copy.region);
    return CL_COMPLETE;
  }
  cl_int operator()(FillImage &fill) const {
    const BufferRect &rect = fill.rect;
    for (size_t slice = 0; slice < fill.region[2]; ++slice)
      for (size_t row = 0; row < fill.region[1]; ++row) {
        std::byte *target = fill.image->data() + rect.offsetOf(row, slice);
        for (size_t element = 0; element < fill.region[0]; ++element)
          std::memcpy(target + element * fill.elementSize, fill.element.data(), fill.elementSize);
      }
    return CL_COMPLETE;
  }
  cl_int operator()(MapBuffer &) const { return CL_COMPLETE; }   // copies nothing
  cl_int operator()(UnmapBuffer &) const { return CL_COMPLETE; } // likewise
  cl_int operator()(NativeKernel &native) const {
    for (auto &[offset, memory] : native.memLocations) {
      void *address = memory->data();
      std::memcpy(native.args.data() + offset, &address, sizeof address);
    }
    native.function(native.args.empty() ? nullptr : native.args.data());
    return CL_COMPLETE;
  }
  // Where the host and the device share one memory, the objects are already where both use them.
  cl_int operator()(MigrateMemory &) const { return CL_COMPLETE; }
  cl_int operator()(CopyMemory &copy) const {
    std::memmove(copy.destination, copy.source, copy.size);
    return CL_COMPLETE;
  }
  cl_int operator()(FillMemory &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(FreeSvm &free) const {
    if (free.callback != nullptr) {
      free.callback(free.queue, static_cast<cl_uint>(free.pointers.size()), free.pointers.data(),
                    free.userData);
      return CL_COMPLETE;
    }
    for (void *pointer : free.pointers)
      free.context->svmAllocations().remove(pointer);
    return CL_COMPLETE;
  }
  cl_int operator()(NoOperation &) const { return CL_COMPLETE; }
  // The runtime runs a command buffer's commands (scheduling/command_buffer_replay.hpp).
  cl_int operator()(RunCommandBuffer &) const { return CL_INVALID_OPERATION; }
};

} // namespace

void ByteTransfer::runPiece(size_t begin, size_t end) const {
  if (source == nullptr)
    fillWithPattern(destination + begin, end - begin, pattern,
                    streaming ? FillStores::NonTemporal : FillStores::Cached);
  else if (streaming)
    streamCopy(destination + begin, source + begin, end - begin);
  else
    std::memcpy(destination + begin, source + begin, end - begin);
}

std::optional<ByteTransfer> byteTransferOf(CommandPayload &payload) {
  return std::visit(TransferOf{}, payload);
}

cl_int executeHostCommand(CommandPayload &payload) {
  if (std::optional<ByteTransfer> transfer = byteTransferOf(payload)) {
    transfer->runPiece(0, transfer->size);
    return CL_COMPLETE;
  }
  return std::visit(HostExecutor{}, payload);
}

} // namespace kiln
