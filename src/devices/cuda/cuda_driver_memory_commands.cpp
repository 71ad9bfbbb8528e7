// Which of a GPU's commands its streams carry out, how the memory commands among them go on a
// stream (copies for the copy engines, fills by the GPU), and the moves of managed memory around
// the commands the host carries out.
#include "devices/cuda/cuda_driver_class.hpp"

#include <array>
#include <variant>

namespace kiln::cuda {
namespace {

/// Whether `memory`'s storage is managed memory, which moves between the host and the GPU (not
/// the pinned host memory of CL_MEM_ALLOC_HOST_PTR).
bool isManaged(const MemObject &memory) {
  return placementOf(memory.flags()) == MemoryPlacement::Device;
}

/// Whether `memory` is a buffer in managed memory, which the copy engines may copy to and from
/// (images are left to the host, which keeps their textures in step).
bool isManagedBuffer(const MemObject &memory) {
  return memory.type() == CL_MEM_OBJECT_BUFFER && isManaged(memory);
}

/// Whether the copy engines can carry out the rectangle copy `copy` (cuMemcpy3DAsync): between
/// buffers in managed memory and the host's memory, with slices a whole number of rows apart.
bool copiesRectOnStream(const CopyRect &copy) {
  auto managedBuffer = [](const Ref<MemObject> &memory) {
    return memory == nullptr || isManagedBuffer(*memory);
  };
  auto fits = [&](const BufferRect &rect) {
    return rect.rowPitch > 0 && rect.rowPitch <= (size_t{1} << 31) &&
           (copy.region[2] <= 1 || rect.slicePitch % rect.rowPitch == 0);
  };
  return managedBuffer(copy.source) && managedBuffer(copy.destination) && fits(copy.sourceRect) &&
         fits(copy.destinationRect);
}

/// Where one side of a rectangle copy starts, its row pitch, and its rows per slice.
struct RectSide {
  std::byte *base;
  size_t rowPitch, rowsPerSlice;
};

RectSide rectSide(std::byte *data, const BufferRect &rect, const std::array<size_t, 3> &region) {
  return {data + rect.offsetOf(), rect.rowPitch,
          region[2] > 1 ? rect.slicePitch / rect.rowPitch : region[1]};
}

} // namespace

bool CudaDriver::runsOnStream(const CommandPayload &payload) {
  if (auto *launch = std::get_if<KernelLaunch>(&payload))
    return !needsHostAfterwards(*launch);
  if (auto *read = std::get_if<ReadBuffer>(&payload))
    return isManaged(*read->buffer);
  if (auto *write = std::get_if<WriteBuffer>(&payload))
    return isManaged(*write->buffer);
  if (auto *fill = std::get_if<FillBuffer>(&payload))
    return isManaged(*fill->buffer);
  if (auto *rect = std::get_if<CopyRect>(&payload))
    return copiesRectOnStream(*rect);
  // The copies of maps through a copy (MapBuffer, UnmapBuffer).
  if (auto *map = std::get_if<MapBuffer>(&payload))
    return map->copiesOut && isManagedBuffer(*map->buffer);
  if (auto *unmap = std::get_if<UnmapBuffer>(&payload))
    return unmap->copiesIn && isManagedBuffer(*unmap->buffer);
  // Copies between SVM allocations and the host's memory (unified addressing names both).
  if (std::holds_alternative<CopyMemory>(payload))
    return true;
  if (auto *fill = std::get_if<FillMemory>(&payload))
    return fill->allocation && isManaged(*fill->allocation);
  return std::holds_alternative<CopyBuffer>(payload);
}

bool CudaDriver::startsFromAnyThread(const CommandPayload &payload) {
  auto *rect = std::get_if<CopyRect>(&payload);
  auto *svmCopy = std::get_if<CopyMemory>(&payload);
  bool readsToHost = std::holds_alternative<ReadBuffer>(payload) ||
                     std::holds_alternative<MapBuffer>(payload) ||
                     (svmCopy != nullptr && !svmCopy->destinationAllocation) ||
                     (rect != nullptr && rect->direction == CopyRect::Direction::BufferToHost);
  return runsOnStream(payload) && !readsToHost;
}

cl_int CudaDriver::enqueueOnStream(CommandPayload &payload, CUstream stream) {
  if (auto *launch = std::get_if<KernelLaunch>(&payload))
    return start(*launch, 0, 0, stream);
  if (auto *read = std::get_if<ReadBuffer>(&payload))
    return copy(read->destination, read->buffer->data() + read->offset, read->size, stream);
  if (auto *write = std::get_if<WriteBuffer>(&payload))
    return copy(write->buffer->data() + write->offset, write->source, write->size, stream);
  if (auto *between = std::get_if<CopyBuffer>(&payload))
    return copy(between->destination->data() + between->destinationOffset,
                between->source->data() + between->sourceOffset, between->size, stream);
  if (auto *rect = std::get_if<CopyRect>(&payload))
    return copy(*rect, stream);
  if (auto *map = std::get_if<MapBuffer>(&payload))
    return copy(map->mappedPointer, map->buffer->data() + map->offset, map->size, stream);
  if (auto *unmap = std::get_if<UnmapBuffer>(&payload))
    return copy(unmap->buffer->data() + unmap->offset, unmap->mappedPointer, unmap->size, stream);
  if (auto *fill = std::get_if<FillBuffer>(&payload))
    return fillOnDevice(fill->buffer->data() + fill->offset, fill->size, fill->pattern, stream);
  if (auto *svmCopy = std::get_if<CopyMemory>(&payload))
    return copy(svmCopy->destination, svmCopy->source, svmCopy->size, stream);
  if (auto *svmFill = std::get_if<FillMemory>(&payload))
    return fillOnDevice(svmFill->destination, svmFill->size, svmFill->pattern, stream);
  return CL_INVALID_OPERATION;
}

cl_int CudaDriver::fillOnDevice(std::byte *target, size_t size, std::span<const std::byte> pattern,
                                CUstream stream) {
  return fills_.fill(target, size, pattern, stream) ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
}

cl_int CudaDriver::copy(void *destination, const void *source, size_t size, CUstream stream) {
  if (size == 0)
    return CL_COMPLETE;
  return cuda_->memcpyAsync(reinterpret_cast<CUdeviceptr>(destination),
                            reinterpret_cast<CUdeviceptr>(source), size, stream) == CUDA_SUCCESS
             ? CL_COMPLETE
             : CL_OUT_OF_RESOURCES;
}

cl_int CudaDriver::copy(CopyRect &rect, CUstream stream) {
  if (rect.region[0] == 0 || rect.region[1] == 0 || rect.region[2] == 0)
    return CL_COMPLETE;
  auto *host = static_cast<std::byte *>(rect.hostPointer);
  RectSide source =
      rectSide(rect.source ? rect.source->data() : host, rect.sourceRect, rect.region);
  RectSide destination = rectSide(rect.destination ? rect.destination->data() : host,
                                  rect.destinationRect, rect.region);
  CUDA_MEMCPY3D copy{};
  copy.srcMemoryType = rect.source ? CU_MEMORYTYPE_UNIFIED : CU_MEMORYTYPE_HOST;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(source.base);
  copy.srcHost = source.base;
  copy.srcPitch = source.rowPitch;
  copy.srcHeight = source.rowsPerSlice;
  copy.dstMemoryType = rect.destination ? CU_MEMORYTYPE_UNIFIED : CU_MEMORYTYPE_HOST;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(destination.base);
  copy.dstHost = destination.base;
  copy.dstPitch = destination.rowPitch;
  copy.dstHeight = destination.rowsPerSlice;
  copy.WidthInBytes = rect.region[0];
  copy.Height = rect.region[1];
  copy.Depth = rect.region[2];
  return cuda_->memcpy3DAsync(&copy, stream) == CUDA_SUCCESS ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
}

void CudaDriver::moveUsedMemoryToDevice(const CommandPayload &payload, CUstream stream) {
  if (auto *launch = std::get_if<KernelLaunch>(&payload)) {
    for (const LaunchMemObject &named : launch->arguments.memObjects)
      residency_.moveToDevice(named.memory->data(), named.memory->size(), stream);
    for (const Ref<MemObject> &allocation : launch->arguments.svmAllocations) {
      // The host uses fine-grained SVM whenever it likes, without a command that would say so.
      if (allocation->flags() & CL_MEM_SVM_FINE_GRAIN_BUFFER)
        residency_.touchedByHost(allocation->data(), allocation->size());
      residency_.moveToDevice(allocation->data(), allocation->size(), stream);
    }
  } else if (auto *fill = std::get_if<FillBuffer>(&payload)) {
    residency_.moveToDevice(fill->buffer->data() + fill->offset, fill->size, stream);
  } else if (auto *svmFill = std::get_if<FillMemory>(&payload)) {
    residency_.moveToDevice(svmFill->destination, svmFill->size, stream);
  }
}

void CudaDriver::moveForHost(CommandPayload &payload, CUstream stream) {
  // (A map through a copy leaves the object's bytes where they are.)
  if (auto *map = std::get_if<MapBuffer>(&payload);
      map != nullptr && isManaged(*map->buffer) &&
      map->mappedPointer == map->buffer->data() + map->offset)
    residency_.moveToHost(map->buffer->data() + map->offset, map->size, stream);
  if (auto *migration = std::get_if<MigrateMemory>(&payload))
    for (const Ref<MemObject> &memory : migration->memObjects) {
      if (!isManaged(*memory))
        continue;
      if (migration->toHost)
        residency_.moveToHost(memory->data(), memory->size(), stream);
      else
        residency_.moveToDevice(memory->data(), memory->size(), stream);
    }
}

void CudaDriver::noteHostAccess(CommandPayload &payload) {
  auto touched = [&](const MemObject *memory) {
    if (memory != nullptr && isManaged(*memory))
      residency_.touchedByHost(memory->data(), memory->size());
  };
  if (auto *copy = std::get_if<CopyRect>(&payload)) {
    touched(copy->source.get());
    touched(copy->destination.get());
  } else if (auto *fill = std::get_if<FillImage>(&payload)) {
    touched(fill->image.get());
  } else if (auto *native = std::get_if<NativeKernel>(&payload)) {
    for (auto &[offset, memory] : native->memLocations)
      touched(memory.get());
  }
}

} // namespace kiln::cuda
