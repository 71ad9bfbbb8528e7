#include "runtime/host_commands.hpp"

#include "runtime/memory.hpp"

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

/// Fills `size` bytes at `target` with copies of `pattern` (whose size divides `size` and 4096).
/// One copy of the pattern at a time costs a call per few bytes: the pattern is repeated over a
/// block first, and the block copied.
void fillWithPattern(std::byte *target, size_t size, std::span<const std::byte> pattern) {
  if (pattern.size() == 1) {
    std::memset(target, static_cast<int>(pattern[0]), size);
    return;
  }
  std::array<std::byte, 4096> block;
  size_t blockSize = std::min(block.size(), size);
  for (size_t offset = 0; offset < blockSize; offset += pattern.size())
    std::memcpy(block.data() + offset, pattern.data(), pattern.size());
  for (size_t offset = 0; offset < size; offset += blockSize)
    std::memcpy(target + offset, block.data(), std::min(blockSize, size - offset));
}

struct HostExecutor {
  cl_int operator()(KernelLaunch &) const { return CL_INVALID_OPERATION; }
  cl_int operator()(ReadBuffer &read) const {
    std::memcpy(read.destination, read.buffer->data() + read.offset, read.size);
    return CL_COMPLETE;
  }
  cl_int operator()(WriteBuffer &write) const {
    std::memcpy(write.buffer->data() + write.offset, write.source, write.size);
    return CL_COMPLETE;
  }
  cl_int operator()(CopyBuffer &copy) const {
    // memmove: a copy within one buffer may overlap only if the application broke the rules,
    // which then must not corrupt anything else.
    std::memmove(copy.destination->data() + copy.destinationOffset,
                 copy.source->data() + copy.sourceOffset, copy.size);
    return CL_COMPLETE;
  }
  cl_int operator()(FillBuffer &fill) const {
    fillWithPattern(fill.buffer->data() + fill.offset, fill.size, fill.pattern);
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
        std::byte *target = fill.image->data() + rect.origin[0] +
                            (rect.origin[1] + row) * rect.rowPitch +
                            (rect.origin[2] + slice) * rect.slicePitch;
        for (size_t element = 0; element < fill.region[0]; ++element)
          std::memcpy(target + element * fill.elementSize, fill.element.data(), fill.elementSize);
      }
    return CL_COMPLETE;
  }
  cl_int operator()(MapBuffer &map) const {
    if (map.copiesOut)
      std::memcpy(map.mappedPointer, map.buffer->data() + map.offset, map.size);
    return CL_COMPLETE;
  }
  cl_int operator()(UnmapBuffer &unmap) const {
    if (unmap.copiesIn)
      std::memcpy(unmap.buffer->data() + unmap.offset, unmap.mappedPointer, unmap.size);
    return CL_COMPLETE;
  }
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
  cl_int operator()(NoOperation &) const { return CL_COMPLETE; }
};

} // namespace

cl_int executeHostCommand(CommandPayload &payload) {
  return std::visit(HostExecutor{}, payload);
}

} // namespace kiln
