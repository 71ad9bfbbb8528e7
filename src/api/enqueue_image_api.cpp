// Commands on images: reads, writes, fills, copies between images and to and from buffers, maps.
// Images live in host memory like buffers, so each is a copy of a 3-D region of rows and slices.
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "api/memory_flags.hpp"
#include "api/recordable_commands.hpp"
#include "runtime/images/image_format.hpp"
#include "runtime/images/image_pixel.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/queue.hpp"

#include <array>

using namespace kiln;
using namespace kiln::api;

namespace {

/// An image argument of a command on `target`'s queue.
cl_int validateImage(const EnqueueTarget &target, cl_mem handle, MemObject *&image) {
  image = toObject<MemObject>(handle);
  if (image == nullptr || image->image() == nullptr)
    return CL_INVALID_MEM_OBJECT;
  if (&image->context() != &target.queue->context())
    return CL_INVALID_CONTEXT;
  if (!target.queue->device().info().imageSupport)
    return CL_INVALID_OPERATION;
  return CL_SUCCESS;
}

/// Queue, wait list and the first image of an image command.
cl_int validateImageCommand(cl_command_queue queue, cl_mem handle, cl_uint numEvents,
                            const cl_event *waitList, EnqueueTarget &target, MemObject *&image) {
  target.queue = toHostQueue(queue);
  if (target.queue == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  if (cl_int error = validateImage(target, handle, image))
    return error;
  return validateWaitList(numEvents, waitList, &target.queue->context(), target.waitList);
}

/// Whether origin + region lies in `image`, with 1 in the coordinates its type does not use.
bool validImageRegion(const ImageDescription &image, const size_t *origin, const size_t *region) {
  if (origin == nullptr || region == nullptr)
    return false;
  std::array<size_t, 3> extent = image.extent();
  for (int dim = 0; dim < 3; ++dim) {
    if (region[dim] == 0 || origin[dim] > extent[dim] || region[dim] > extent[dim] - origin[dim])
      return false;
  }
  return true;
}

/// The rows and slices of a region of `image` starting at `origin` (in elements).
BufferRect imageRect(const ImageDescription &image, const size_t *origin) {
  return {{origin[0] * image.elementSize, origin[1], origin[2]},
          image.regionRowPitch(),
          image.regionSlicePitch()};
}

/// The host memory side of a read or write: `rowPitch` and `slicePitch` as the application gave
/// them (0: packed); false when too small.
bool hostRect(const ImageDescription &image, const size_t *region, size_t rowPitch,
              size_t slicePitch, BufferRect &rect) {
  size_t rowBytes = region[0] * image.elementSize;
  rowPitch = rowPitch != 0 ? rowPitch : rowBytes;
  if (rowPitch < rowBytes)
    return false;
  bool layersAreRows = image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  bool hasSlices = layersAreRows || image.type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                   image.type == CL_MEM_OBJECT_IMAGE3D;
  if (!hasSlices) {
    rect = {{0, 0, 0}, rowPitch, rowPitch * region[1]};
    return true;
  }
  // A 1D array's layers are one row each: the slice pitch separates them.
  size_t packedSlice = layersAreRows ? rowPitch : rowPitch * region[1];
  slicePitch = slicePitch != 0 ? slicePitch : packedSlice;
  if (slicePitch < packedSlice)
    return false;
  rect = layersAreRows ? BufferRect{{0, 0, 0}, slicePitch, slicePitch * region[1]}
                       : BufferRect{{0, 0, 0}, rowPitch, slicePitch};
  return true;
}

std::array<size_t, 3> byteRegion(const ImageDescription &image, const size_t *region) {
  return {region[0] * image.elementSize, region[1], region[2]};
}

} // namespace

KILN_API cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue command_queue, cl_mem image,
                                               cl_bool blocking_read, const size_t *origin,
                                               const size_t *region, size_t row_pitch,
                                               size_t slice_pitch, void *ptr,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    MemObject *source;
    if (cl_int error = validateImageCommand(command_queue, image, num_events_in_wait_list,
                                            event_wait_list, target, source))
      return error;
    const ImageDescription &layout = *source->image();
    CopyRect copy{CopyRect::Direction::BufferToHost, Ref<MemObject>(source), nullptr, ptr};
    if (ptr == nullptr || !validImageRegion(layout, origin, region) ||
        !hostRect(layout, region, row_pitch, slice_pitch, copy.destinationRect))
      return CL_INVALID_VALUE;
    if (!hostMayRead(source->flags()))
      return CL_INVALID_OPERATION;
    copy.sourceRect = imageRect(layout, origin);
    copy.region = byteRegion(layout, region);
    return submitCommand(target, CL_COMMAND_READ_IMAGE, std::move(copy), event, blocking_read);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue command_queue, cl_mem image,
                                                cl_bool blocking_write, const size_t *origin,
                                                const size_t *region, size_t input_row_pitch,
                                                size_t input_slice_pitch, const void *ptr,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    MemObject *destination;
    if (cl_int error = validateImageCommand(command_queue, image, num_events_in_wait_list,
                                            event_wait_list, target, destination))
      return error;
    const ImageDescription &layout = *destination->image();
    CopyRect copy{CopyRect::Direction::HostToBuffer, nullptr, Ref<MemObject>(destination),
                  const_cast<void *>(ptr)};
    if (ptr == nullptr || !validImageRegion(layout, origin, region) ||
        !hostRect(layout, region, input_row_pitch, input_slice_pitch, copy.sourceRect))
      return CL_INVALID_VALUE;
    if (!hostMayWrite(destination->flags()))
      return CL_INVALID_OPERATION;
    copy.destinationRect = imageRect(layout, origin);
    copy.region = byteRegion(layout, region);
    return submitCommand(target, CL_COMMAND_WRITE_IMAGE, std::move(copy), event, blocking_write);
  });
}

cl_int kiln::api::copyImage(const EnqueueTarget &target, cl_mem src_image, cl_mem dst_image,
                            const size_t *src_origin, const size_t *dst_origin,
                            const size_t *region, cl_event *event) {
  MemObject *source, *destination;
  if (cl_int error = validateImage(target, src_image, source))
    return error;
  if (cl_int error = validateImage(target, dst_image, destination))
    return error;
  const ImageDescription &from = *source->image();
  const ImageDescription &to = *destination->image();
  if (!sameFormat(from.format, to.format))
    return CL_IMAGE_FORMAT_MISMATCH;
  if (!validImageRegion(from, src_origin, region) || !validImageRegion(to, dst_origin, region))
    return CL_INVALID_VALUE;
  if (source == destination) {
    bool disjoint = false;
    for (int dim = 0; dim < 3; ++dim)
      disjoint = disjoint || src_origin[dim] + region[dim] <= dst_origin[dim] ||
                 dst_origin[dim] + region[dim] <= src_origin[dim];
    if (!disjoint)
      return CL_MEM_COPY_OVERLAP;
  }
  CopyRect copy{CopyRect::Direction::BufferToBuffer, Ref<MemObject>(source),
                Ref<MemObject>(destination), nullptr};
  copy.sourceRect = imageRect(from, src_origin);
  copy.destinationRect = imageRect(to, dst_origin);
  copy.region = byteRegion(from, region);
  return submitCommand(target, CL_COMMAND_COPY_IMAGE, std::move(copy), event);
}

KILN_API cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue command_queue, cl_mem src_image,
                                               cl_mem dst_image, const size_t *src_origin,
                                               const size_t *dst_origin, const size_t *region,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return copyImage(target, src_image, dst_image, src_origin, dst_origin, region, event);
  });
}

cl_int kiln::api::copyImageToBuffer(const EnqueueTarget &target, cl_mem src_image,
                                    cl_mem dst_buffer, const size_t *src_origin,
                                    const size_t *region, size_t dst_offset, cl_event *event) {
  MemObject *source;
  if (cl_int error = validateImage(target, src_image, source))
    return error;
  MemObject *destination = toObject<MemObject>(dst_buffer);
  if (destination == nullptr || destination->type() != CL_MEM_OBJECT_BUFFER)
    return CL_INVALID_MEM_OBJECT;
  if (&destination->context() != &target.queue->context())
    return CL_INVALID_CONTEXT;
  const ImageDescription &layout = *source->image();
  if (!validImageRegion(layout, src_origin, region))
    return CL_INVALID_VALUE;
  CopyRect copy{CopyRect::Direction::BufferToBuffer, Ref<MemObject>(source),
                Ref<MemObject>(destination), nullptr};
  // The buffer receives the region packed: rows of region[0] elements, slices of rows.
  if (!hostRect(layout, region, 0, 0, copy.destinationRect))
    return CL_INVALID_VALUE;
  size_t bytes = copy.destinationRect.slicePitch * region[2];
  if (dst_offset > destination->size() || bytes > destination->size() - dst_offset)
    return CL_INVALID_VALUE;
  copy.destinationRect.origin[0] = dst_offset;
  copy.sourceRect = imageRect(layout, src_origin);
  copy.region = byteRegion(layout, region);
  return submitCommand(target, CL_COMMAND_COPY_IMAGE_TO_BUFFER, std::move(copy), event);
}

KILN_API cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin,
    const size_t *region, size_t dst_offset, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return copyImageToBuffer(target, src_image, dst_buffer, src_origin, region, dst_offset, event);
  });
}

cl_int kiln::api::copyBufferToImage(const EnqueueTarget &target, cl_mem src_buffer,
                                    cl_mem dst_image, size_t src_offset, const size_t *dst_origin,
                                    const size_t *region, cl_event *event) {
  MemObject *destination;
  if (cl_int error = validateImage(target, dst_image, destination))
    return error;
  MemObject *source = toObject<MemObject>(src_buffer);
  if (source == nullptr || source->type() != CL_MEM_OBJECT_BUFFER)
    return CL_INVALID_MEM_OBJECT;
  if (&source->context() != &target.queue->context())
    return CL_INVALID_CONTEXT;
  const ImageDescription &layout = *destination->image();
  if (!validImageRegion(layout, dst_origin, region))
    return CL_INVALID_VALUE;
  CopyRect copy{CopyRect::Direction::BufferToBuffer, Ref<MemObject>(source),
                Ref<MemObject>(destination), nullptr};
  if (!hostRect(layout, region, 0, 0, copy.sourceRect))
    return CL_INVALID_VALUE;
  size_t bytes = copy.sourceRect.slicePitch * region[2];
  if (src_offset > source->size() || bytes > source->size() - src_offset)
    return CL_INVALID_VALUE;
  copy.sourceRect.origin[0] = src_offset;
  copy.destinationRect = imageRect(layout, dst_origin);
  copy.region = byteRegion(layout, region);
  return submitCommand(target, CL_COMMAND_COPY_BUFFER_TO_IMAGE, std::move(copy), event);
}

KILN_API cl_int CL_API_CALL clEnqueueCopyBufferToImage(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image, size_t src_offset,
    const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return copyBufferToImage(target, src_buffer, dst_image, src_offset, dst_origin, region, event);
  });
}

cl_int kiln::api::fillImage(const EnqueueTarget &target, cl_mem image, const void *fill_color,
                            const size_t *origin, const size_t *region, cl_event *event) {
  MemObject *filled;
  if (cl_int error = validateImage(target, image, filled))
    return error;
  const ImageDescription &layout = *filled->image();
  if (fill_color == nullptr || !validImageRegion(layout, origin, region))
    return CL_INVALID_VALUE;
  FillImage fill{Ref<MemObject>(filled),
                 imageRect(layout, origin),
                 {region[0], region[1], region[2]},
                 layout.elementSize,
                 packImageElement(layout.format, fill_color)};
  return submitCommand(target, CL_COMMAND_FILL_IMAGE, std::move(fill), event);
}

KILN_API cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue command_queue, cl_mem image,
                                               const void *fill_color, const size_t *origin,
                                               const size_t *region,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return fillImage(target, image, fill_color, origin, region, event);
  });
}

KILN_API void *CL_API_CALL clEnqueueMapImage(cl_command_queue command_queue, cl_mem image,
                                             cl_bool blocking_map, cl_map_flags map_flags,
                                             const size_t *origin, const size_t *region,
                                             size_t *image_row_pitch, size_t *image_slice_pitch,
                                             cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list, cl_event *event,
                                             cl_int *errcode_ret) {
  return guardCreate<void *>(errcode_ret, [&](cl_int &error) -> void * {
    EnqueueTarget target;
    MemObject *mapped;
    error = validateImageCommand(command_queue, image, num_events_in_wait_list, event_wait_list,
                                 target, mapped);
    if (error != CL_SUCCESS)
      return nullptr;
    const ImageDescription &layout = *mapped->image();
    constexpr cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    bool invalidateWithOthers =
        (map_flags & CL_MAP_WRITE_INVALIDATE_REGION) && (map_flags & (CL_MAP_READ | CL_MAP_WRITE));
    bool hasSlices = layout.slicePitch != 0;
    if ((map_flags & ~known) || invalidateWithOthers || !validImageRegion(layout, origin, region) ||
        image_row_pitch == nullptr || (hasSlices && image_slice_pitch == nullptr)) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    bool reads = map_flags & CL_MAP_READ;
    bool writes = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
    if ((reads && !hostMayRead(mapped->flags())) || (writes && !hostMayWrite(mapped->flags()))) {
      error = CL_INVALID_OPERATION;
      return nullptr;
    }
    // The mapping is the image itself, with its own pitches: the application's memory for
    // CL_MEM_USE_HOST_PTR. Where the image caches that memory (a context with a GPU), the map
    // copies the bytes from the region's first to its last out to it, and the unmap back.
    BufferRect rect = imageRect(layout, origin);
    size_t offset = rect.offsetOf();
    size_t span = (region[2] - 1) * rect.slicePitch + (region[1] - 1) * rect.rowPitch +
                  region[0] * layout.elementSize;
    void *pointer = mapped->mapAddress(offset);
    *image_row_pitch = layout.rowPitch;
    if (image_slice_pitch != nullptr)
      *image_slice_pitch = layout.slicePitch;
    bool throughCopy = mapped->cachesHostMemory();
    mapped->recordMapping({pointer, offset, span, writes, throughCopy});
    bool copiesOut = throughCopy && !(map_flags & CL_MAP_WRITE_INVALIDATE_REGION);
    error = submitCommand(target, CL_COMMAND_MAP_IMAGE,
                          MapBuffer{Ref<MemObject>(mapped), pointer, offset, span, copiesOut},
                          event, blocking_map);
    if (error != CL_SUCCESS) {
      mapped->removeMapping(pointer);
      return nullptr;
    }
    return pointer;
  });
}
