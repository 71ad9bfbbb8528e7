// Commands that move buffer data: reads, writes, copies, fills, rectangles, maps, migrations
// (the image commands: enqueue_image_api.cpp).
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "api/memory_flags.hpp"
#include "api/recordable_commands.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/queue.hpp"

#include <algorithm>
#include <array>

using namespace kiln;
using namespace kiln::api;

namespace {

/// A buffer argument of a command on `queue`: CL_INVALID_MEM_OBJECT or CL_INVALID_CONTEXT.
cl_int validateBuffer(const EnqueueTarget &target, cl_mem handle, MemObject *&buffer) {
  buffer = toObject<MemObject>(handle);
  if (buffer == nullptr || buffer->type() != CL_MEM_OBJECT_BUFFER)
    return CL_INVALID_MEM_OBJECT;
  if (&buffer->context() != &target.queue->context())
    return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

bool inBounds(const MemObject &buffer, size_t offset, size_t size) {
  return offset <= buffer.size() && size <= buffer.size() - offset;
}

/// The common head of every command: queue, wait list, buffer.
cl_int validateBufferCommand(cl_command_queue queue, cl_mem handle, cl_uint numEvents,
                             const cl_event *waitList, EnqueueTarget &target, MemObject *&buffer) {
  target.queue = toHostQueue(queue);
  if (target.queue == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  if (cl_int error = validateBuffer(target, handle, buffer))
    return error;
  return validateWaitList(numEvents, waitList, &target.queue->context(), target.waitList);
}

} // namespace

KILN_API cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
                                                cl_bool blocking_read, size_t offset, size_t size,
                                                void *ptr, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    MemObject *source;
    if (cl_int error = validateBufferCommand(command_queue, buffer, num_events_in_wait_list,
                                             event_wait_list, target, source))
      return error;
    if (ptr == nullptr || size == 0 || !inBounds(*source, offset, size))
      return CL_INVALID_VALUE;
    if (!hostMayRead(source->flags()))
      return CL_INVALID_OPERATION;
    return submitCommand(target, CL_COMMAND_READ_BUFFER,
                         ReadBuffer{Ref<MemObject>(source), offset, size, ptr}, event,
                         blocking_read);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
                                                 cl_bool blocking_write, size_t offset, size_t size,
                                                 const void *ptr, cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    MemObject *destination;
    if (cl_int error = validateBufferCommand(command_queue, buffer, num_events_in_wait_list,
                                             event_wait_list, target, destination))
      return error;
    if (ptr == nullptr || size == 0 || !inBounds(*destination, offset, size))
      return CL_INVALID_VALUE;
    if (!hostMayWrite(destination->flags()))
      return CL_INVALID_OPERATION;
    return submitCommand(target, CL_COMMAND_WRITE_BUFFER,
                         WriteBuffer{Ref<MemObject>(destination), offset, size, ptr}, event,
                         blocking_write);
  });
}

namespace {

/// The whole buffer a (sub-)buffer lives in, and its offset there: overlap checks compare those.
std::pair<const MemObject *, size_t> storageOf(const MemObject &buffer) {
  return buffer.parent() ? std::pair<const MemObject *, size_t>{buffer.parent(), buffer.origin()}
                         : std::pair<const MemObject *, size_t>{&buffer, 0};
}

bool rangesOverlap(size_t firstStart, size_t secondStart, size_t size) {
  return firstStart < secondStart + size && secondStart < firstStart + size;
}

} // namespace

cl_int kiln::api::copyBuffer(const EnqueueTarget &target, cl_mem src_buffer, cl_mem dst_buffer,
                             size_t src_offset, size_t dst_offset, size_t size, cl_event *event) {
  MemObject *source, *destination;
  if (cl_int error = validateBuffer(target, src_buffer, source))
    return error;
  if (cl_int error = validateBuffer(target, dst_buffer, destination))
    return error;
  if (size == 0 || !inBounds(*source, src_offset, size) ||
      !inBounds(*destination, dst_offset, size))
    return CL_INVALID_VALUE;
  auto [sourceStorage, sourceBase] = storageOf(*source);
  auto [destinationStorage, destinationBase] = storageOf(*destination);
  if (sourceStorage == destinationStorage &&
      rangesOverlap(sourceBase + src_offset, destinationBase + dst_offset, size))
    return CL_MEM_COPY_OVERLAP;
  return submitCommand(
      target, CL_COMMAND_COPY_BUFFER,
      CopyBuffer{Ref<MemObject>(source), Ref<MemObject>(destination), src_offset, dst_offset, size},
      event);
}

KILN_API cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue command_queue, cl_mem src_buffer,
                                                cl_mem dst_buffer, size_t src_offset,
                                                size_t dst_offset, size_t size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return copyBuffer(target, src_buffer, dst_buffer, src_offset, dst_offset, size, event);
  });
}

cl_int kiln::api::fillBuffer(const EnqueueTarget &target, cl_mem buffer, const void *pattern,
                             size_t pattern_size, size_t offset, size_t size, cl_event *event) {
  MemObject *destination;
  if (cl_int error = validateBuffer(target, buffer, destination))
    return error;
  bool validPatternSize =
      pattern_size != 0 && pattern_size <= 128 && (pattern_size & (pattern_size - 1)) == 0;
  if (pattern == nullptr || !validPatternSize || offset % pattern_size != 0 ||
      size % pattern_size != 0 || !inBounds(*destination, offset, size))
    return CL_INVALID_VALUE;
  const auto *bytes = static_cast<const std::byte *>(pattern);
  return submitCommand(target, CL_COMMAND_FILL_BUFFER,
                       FillBuffer{Ref<MemObject>(destination), offset, size,
                                  std::vector<std::byte>(bytes, bytes + pattern_size)},
                       event);
}

KILN_API cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue command_queue, cl_mem buffer,
                                                const void *pattern, size_t pattern_size,
                                                size_t offset, size_t size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return fillBuffer(target, buffer, pattern, pattern_size, offset, size, event);
  });
}

namespace {

/// Fills in default pitches and checks a rectangle against the memory it lies in (`limit`
/// bytes; no limit for host memory).
bool completeRect(const size_t *origin, const size_t *region, size_t rowPitch, size_t slicePitch,
                  size_t limit, BufferRect &rect) {
  if (rowPitch == 0)
    rowPitch = region[0];
  else if (rowPitch < region[0])
    return false;
  if (slicePitch == 0)
    slicePitch = region[1] * rowPitch;
  else if (slicePitch < region[1] * rowPitch || slicePitch % rowPitch != 0)
    return false;
  rect.origin = {origin[0], origin[1], origin[2]};
  rect.rowPitch = rowPitch;
  rect.slicePitch = slicePitch;
  size_t lastByte = (origin[2] + region[2] - 1) * slicePitch +
                    (origin[1] + region[1] - 1) * rowPitch + origin[0] + region[0];
  return lastByte <= limit;
}

bool validRegion(const size_t *origin, const size_t *region) {
  return origin != nullptr && region != nullptr && region[0] != 0 && region[1] != 0 &&
         region[2] != 0;
}

constexpr size_t kNoLimit = ~size_t{0};

} // namespace

KILN_API cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read,
    const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
    size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
    size_t host_slice_pitch, void *ptr, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    MemObject *source;
    if (cl_int error = validateBufferCommand(command_queue, buffer, num_events_in_wait_list,
                                             event_wait_list, target, source))
      return error;
    CopyRect copy{CopyRect::Direction::BufferToHost, Ref<MemObject>(source), nullptr, ptr};
    if (ptr == nullptr || !validRegion(buffer_origin, region) || host_origin == nullptr ||
        !completeRect(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch, source->size(),
                      copy.sourceRect) ||
        !completeRect(host_origin, region, host_row_pitch, host_slice_pitch, kNoLimit,
                      copy.destinationRect))
      return CL_INVALID_VALUE;
    if (!hostMayRead(source->flags()))
      return CL_INVALID_OPERATION;
    copy.region = {region[0], region[1], region[2]};
    return submitCommand(target, CL_COMMAND_READ_BUFFER_RECT, std::move(copy), event,
                         blocking_read);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_write,
    const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
    size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
    size_t host_slice_pitch, const void *ptr, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    MemObject *destination;
    if (cl_int error = validateBufferCommand(command_queue, buffer, num_events_in_wait_list,
                                             event_wait_list, target, destination))
      return error;
    CopyRect copy{CopyRect::Direction::HostToBuffer, nullptr, Ref<MemObject>(destination),
                  const_cast<void *>(ptr)};
    if (ptr == nullptr || !validRegion(buffer_origin, region) || host_origin == nullptr ||
        !completeRect(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch,
                      destination->size(), copy.destinationRect) ||
        !completeRect(host_origin, region, host_row_pitch, host_slice_pitch, kNoLimit,
                      copy.sourceRect))
      return CL_INVALID_VALUE;
    if (!hostMayWrite(destination->flags()))
      return CL_INVALID_OPERATION;
    copy.region = {region[0], region[1], region[2]};
    return submitCommand(target, CL_COMMAND_WRITE_BUFFER_RECT, std::move(copy), event,
                         blocking_write);
  });
}

namespace {

/// Whether two rectangles of rows in one storage share a byte; `firstBase` and `secondBase` are
/// where the (sub-)buffers holding them start. Every row has the same width, so a row of the
/// first overlaps one of the second exactly when their starts are less than a width apart:
/// sorting the second's row starts makes each test a binary search.
bool rectsOverlap(size_t firstBase, const BufferRect &first, size_t secondBase,
                  const BufferRect &second, const std::array<size_t, 3> &region) {
  auto rowStarts = [&](size_t base, const BufferRect &rect) {
    std::vector<size_t> starts;
    starts.reserve(region[1] * region[2]);
    for (size_t slice = 0; slice < region[2]; ++slice)
      for (size_t row = 0; row < region[1]; ++row)
        starts.push_back(base + rect.offsetOf(row, slice));
    return starts;
  };
  std::vector<size_t> secondStarts = rowStarts(secondBase, second);
  std::sort(secondStarts.begin(), secondStarts.end());
  size_t width = region[0];
  for (size_t start : rowStarts(firstBase, first)) {
    size_t lowest = start >= width ? start - width + 1 : 0;
    auto candidate = std::lower_bound(secondStarts.begin(), secondStarts.end(), lowest);
    if (candidate != secondStarts.end() && *candidate < start + width)
      return true;
  }
  return false;
}

} // namespace

cl_int kiln::api::copyBufferRect(const EnqueueTarget &target, cl_mem src_buffer, cl_mem dst_buffer,
                                 const size_t *src_origin, const size_t *dst_origin,
                                 const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
                                 size_t dst_row_pitch, size_t dst_slice_pitch, cl_event *event) {
  MemObject *source, *destination;
  if (cl_int error = validateBuffer(target, src_buffer, source))
    return error;
  if (cl_int error = validateBuffer(target, dst_buffer, destination))
    return error;
  CopyRect copy{CopyRect::Direction::BufferToBuffer, Ref<MemObject>(source),
                Ref<MemObject>(destination), nullptr};
  if (!validRegion(src_origin, region) || dst_origin == nullptr ||
      !completeRect(src_origin, region, src_row_pitch, src_slice_pitch, source->size(),
                    copy.sourceRect) ||
      !completeRect(dst_origin, region, dst_row_pitch, dst_slice_pitch, destination->size(),
                    copy.destinationRect))
    return CL_INVALID_VALUE;
  copy.region = {region[0], region[1], region[2]};
  if (source == destination && copy.sourceRect.rowPitch != copy.destinationRect.rowPitch &&
      copy.sourceRect.slicePitch != copy.destinationRect.slicePitch)
    return CL_INVALID_VALUE;
  auto [sourceStorage, sourceBase] = storageOf(*source);
  auto [destinationStorage, destinationBase] = storageOf(*destination);
  if (sourceStorage == destinationStorage &&
      rectsOverlap(sourceBase, copy.sourceRect, destinationBase, copy.destinationRect, copy.region))
    return CL_MEM_COPY_OVERLAP;
  return submitCommand(target, CL_COMMAND_COPY_BUFFER_RECT, std::move(copy), event);
}

KILN_API cl_int CL_API_CALL clEnqueueCopyBufferRect(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_buffer, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
    size_t dst_row_pitch, size_t dst_slice_pitch, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return copyBufferRect(target, src_buffer, dst_buffer, src_origin, dst_origin, region,
                          src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch, event);
  });
}

KILN_API void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue command_queue, cl_mem buffer,
                                              cl_bool blocking_map, cl_map_flags map_flags,
                                              size_t offset, size_t size,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event,
                                              cl_int *errcode_ret) {
  return guardCreate<void *>(errcode_ret, [&](cl_int &error) -> void * {
    EnqueueTarget target;
    MemObject *mapped;
    error = validateBufferCommand(command_queue, buffer, num_events_in_wait_list, event_wait_list,
                                  target, mapped);
    if (error != CL_SUCCESS)
      return nullptr;
    constexpr cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    bool invalidateWithOthers =
        (map_flags & CL_MAP_WRITE_INVALIDATE_REGION) && (map_flags & (CL_MAP_READ | CL_MAP_WRITE));
    if ((map_flags & ~known) || invalidateWithOthers || size == 0 ||
        !inBounds(*mapped, offset, size)) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    bool reads = map_flags & CL_MAP_READ;
    bool writes = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
    if ((reads && !hostMayRead(mapped->flags())) || (writes && !hostMayWrite(mapped->flags()))) {
      error = CL_INVALID_OPERATION;
      return nullptr;
    }
    // The mapped region is the buffer itself or a copy of it, or for CL_MEM_USE_HOST_PTR the
    // application's memory at `offset`, as required.
    void *pointer = mapped->prepareMapAddress(offset);
    bool throughCopy = pointer != mapped->data() + offset;
    mapped->recordMapping({pointer, offset, size, writes, throughCopy});
    bool copiesOut = throughCopy && !(map_flags & CL_MAP_WRITE_INVALIDATE_REGION);
    error = submitCommand(target, CL_COMMAND_MAP_BUFFER,
                          MapBuffer{Ref<MemObject>(mapped), pointer, offset, size, copiesOut},
                          event, blocking_map);
    if (error != CL_SUCCESS) {
      mapped->removeMapping(pointer); // the application never gets this mapping
      return nullptr;
    }
    return pointer;
  });
}

KILN_API cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue command_queue, cl_mem memobj,
                                                    void *mapped_ptr,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    target.queue = toHostQueue(command_queue);
    if (target.queue == nullptr)
      return CL_INVALID_COMMAND_QUEUE;
    MemObject *mapped = toObject<MemObject>(memobj); // a buffer or an image
    if (mapped == nullptr)
      return CL_INVALID_MEM_OBJECT;
    if (&mapped->context() != &target.queue->context())
      return CL_INVALID_CONTEXT;
    if (cl_int error = validateWaitList(num_events_in_wait_list, event_wait_list,
                                        &target.queue->context(), target.waitList))
      return error;
    std::optional<MemObject::Mapping> mapping;
    if (mapped_ptr == nullptr || !(mapping = mapped->removeMapping(mapped_ptr)))
      return CL_INVALID_VALUE;
    bool copiesIn = mapping->throughCopy && mapping->writes;
    return submitCommand(target, CL_COMMAND_UNMAP_MEM_OBJECT,
                         UnmapBuffer{Ref<MemObject>(mapped), mapping->pointer, mapping->offset,
                                     mapping->size, copiesIn},
                         event);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueMigrateMemObjects(
    cl_command_queue command_queue, cl_uint num_mem_objects, const cl_mem *mem_objects,
    cl_mem_migration_flags flags, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    if (num_mem_objects == 0 || mem_objects == nullptr ||
        (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
      return CL_INVALID_VALUE;
    MigrateMemory migration;
    migration.toHost = flags & CL_MIGRATE_MEM_OBJECT_HOST;
    for (cl_uint index = 0; index < num_mem_objects; ++index) {
      MemObject *memory = toObject<MemObject>(mem_objects[index]);
      if (memory == nullptr)
        return CL_INVALID_MEM_OBJECT;
      if (&memory->context() != &target.queue->context())
        return CL_INVALID_CONTEXT;
      migration.memObjects.emplace_back(memory);
    }
    return submitCommand(target, CL_COMMAND_MIGRATE_MEM_OBJECTS, std::move(migration), event);
  });
}
