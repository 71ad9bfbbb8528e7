// Shared virtual memory: clSVMAlloc and clSVMFree, and the commands on SVM pointers (copy, fill,
// map, unmap, migrate, free). An allocation is a context's buffer that the application sees only
// as its address (runtime/objects/svm_allocations.hpp); a pointer outside every allocation is
// the host's own memory, which devices with fine-grained system SVM reach as it is.
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "api/recordable_commands.hpp"
#include "api/shared_memory_commands.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/queue.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

using namespace kiln;
using namespace kiln::api;

namespace {

/// Whether clSVMAlloc accepts `flags` in a context whose devices offer `capabilities`: one
/// access qualifier at most, atomics only in fine-grained buffers, and only what a device offers.
bool acceptsSvmFlags(cl_svm_mem_flags flags, cl_device_svm_capabilities capabilities) {
  constexpr cl_svm_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
  constexpr cl_svm_mem_flags known = access | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;
  if ((flags & ~known) || std::popcount(flags & access) > 1)
    return false;
  if ((flags & CL_MEM_SVM_ATOMICS) && !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER))
    return false;
  if ((flags & CL_MEM_SVM_FINE_GRAIN_BUFFER) && !(capabilities & CL_DEVICE_SVM_FINE_GRAIN_BUFFER))
    return false;
  return !(flags & CL_MEM_SVM_ATOMICS) || (capabilities & CL_DEVICE_SVM_ATOMICS);
}

/// The SVM capabilities of the queue's device; commands on a queue whose device has none are
/// invalid operations.
cl_device_svm_capabilities svmCapabilitiesOf(const Queue &queue) {
  return queue.device().info().svmCapabilities;
}

/// The head of every SVM command: queue, wait list, and a device that has SVM.
cl_int validateSvmCommand(cl_command_queue queue, cl_uint numEvents, const cl_event *waitList,
                          EnqueueTarget &target) {
  if (cl_int error = validateEnqueue(queue, numEvents, waitList, target))
    return error;
  return svmCapabilitiesOf(*target.queue) == 0 ? CL_INVALID_OPERATION : CL_SUCCESS;
}

bool overlaps(const void *first, const void *second, size_t size) {
  auto a = reinterpret_cast<uintptr_t>(first), b = reinterpret_cast<uintptr_t>(second);
  return a < b + size && b < a + size;
}

/// Whether [location, location + size) stays inside the allocation that holds it, where it is in
/// one.
bool fitsInAllocation(const SvmLocation &location, size_t size) {
  return !location || size <= location.bytesAfter();
}

} // namespace

KILN_API void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                                      cl_uint alignment) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr)
    return nullptr;
  try {
    cl_device_svm_capabilities capabilities = owner->svmCapabilities();
    // The alignment of the largest OpenCL C type (long16) at most, which every allocation has.
    bool alignmentOk = std::has_single_bit(alignment) || alignment == 0;
    if (capabilities == 0 || !acceptsSvmFlags(flags, capabilities) || size == 0 ||
        size > owner->maxAllocationSize() || !alignmentOk || alignment > MemObject::kBaseAlignment)
      return nullptr;
    AlignedStorage storage = owner->allocateStorage(size);
    if (!storage)
      return nullptr;
    if (!(flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)))
      flags |= CL_MEM_READ_WRITE;
    // The context's reference, not the application's: the application holds only the address.
    Ref<MemObject> allocation = Ref<MemObject>::adopt(createObject<MemObject>(
        *owner, flags, size, nullptr, std::move(storage), std::vector<cl_mem_properties>{}));
    void *address = allocation->data();
    owner->svmAllocations().add(std::move(allocation));
    return address;
  } catch (...) {
    return nullptr;
  }
}

KILN_API void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr || svm_pointer == nullptr)
    return;
  owner->svmAllocations().remove(svm_pointer);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMFree(
    cl_command_queue command_queue, cl_uint num_svm_pointers, void *svm_pointers[],
    void(CL_CALLBACK *pfn_free_func)(cl_command_queue, cl_uint, void *[], void *), void *user_data,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateSvmCommand(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    if ((num_svm_pointers == 0) != (svm_pointers == nullptr))
      return CL_INVALID_VALUE;
    FreeSvm free{
        pfn_free_func, user_data, command_queue, {}, Ref<Context>(&target.queue->context())};
    free.pointers.assign(svm_pointers, svm_pointers + num_svm_pointers);
    if (std::find(free.pointers.begin(), free.pointers.end(), nullptr) != free.pointers.end())
      return CL_INVALID_VALUE;
    return submitCommand(target, CL_COMMAND_SVM_FREE, std::move(free), event);
  });
}

namespace kiln::api {

cl_int copySharedMemory(const EnqueueTarget &target, cl_command_type type, bool blocking,
                        void *destination, const void *source, size_t size, cl_event *event) {
  if (svmCapabilitiesOf(*target.queue) == 0)
    return CL_INVALID_OPERATION;
  if (destination == nullptr || source == nullptr)
    return CL_INVALID_VALUE;
  if (overlaps(destination, source, size))
    return CL_MEM_COPY_OVERLAP;
  SvmAllocations &allocations = target.queue->context().svmAllocations();
  SvmLocation to = allocations.find(destination), from = allocations.find(source);
  if (!fitsInAllocation(to, size) || !fitsInAllocation(from, size))
    return CL_INVALID_VALUE;
  return submitCommand(target, type,
                       CopyMemory{static_cast<std::byte *>(destination),
                                  static_cast<const std::byte *>(source), size,
                                  std::move(to.allocation), std::move(from.allocation)},
                       event, blocking);
}

cl_int enqueueSharedMemoryCopy(cl_command_queue queue, cl_command_type type, bool blocking,
                               void *destination, const void *source, size_t size,
                               cl_uint numEvents, const cl_event *waitList, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error = validateEnqueue(queue, numEvents, waitList, target))
      return error;
    return copySharedMemory(target, type, blocking, destination, source, size, event);
  });
}

cl_int fillSharedMemory(const EnqueueTarget &target, cl_command_type type, void *destination,
                        const void *pattern, size_t patternSize, size_t size, cl_event *event) {
  if (svmCapabilitiesOf(*target.queue) == 0)
    return CL_INVALID_OPERATION;
  if (destination == nullptr || pattern == nullptr || !std::has_single_bit(patternSize) ||
      patternSize > 128 || reinterpret_cast<uintptr_t>(destination) % patternSize != 0 ||
      size % patternSize != 0)
    return CL_INVALID_VALUE;
  SvmLocation location = target.queue->context().svmAllocations().find(destination);
  if (!fitsInAllocation(location, size))
    return CL_INVALID_VALUE;
  const auto *bytes = static_cast<const std::byte *>(pattern);
  return submitCommand(target, type,
                       FillMemory{static_cast<std::byte *>(destination), size,
                                  std::vector<std::byte>(bytes, bytes + patternSize),
                                  std::move(location.allocation)},
                       event);
}

cl_int enqueueSharedMemoryFill(cl_command_queue queue, cl_command_type type, void *destination,
                               const void *pattern, size_t patternSize, size_t size,
                               cl_uint numEvents, const cl_event *waitList, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error = validateEnqueue(queue, numEvents, waitList, target))
      return error;
    return fillSharedMemory(target, type, destination, pattern, patternSize, size, event);
  });
}

cl_int enqueueSharedMemoryMigration(cl_command_queue queue, cl_command_type type,
                                    std::span<const void *const> pointers, const size_t *sizes,
                                    cl_mem_migration_flags flags, cl_uint numEvents,
                                    const cl_event *waitList, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error = validateSvmCommand(queue, numEvents, waitList, target))
      return error;
    if (pointers.empty() ||
        (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
      return CL_INVALID_VALUE;
    MigrateMemory migration;
    migration.toHost = flags & CL_MIGRATE_MEM_OBJECT_HOST;
    SvmAllocations &allocations = target.queue->context().svmAllocations();
    for (size_t index = 0; index < pointers.size(); ++index) {
      if (pointers[index] == nullptr)
        return CL_INVALID_VALUE;
      SvmLocation location = allocations.find(pointers[index]);
      size_t size = sizes != nullptr ? sizes[index] : 0;
      if (!fitsInAllocation(location, size))
        return CL_INVALID_VALUE;
      // The host's own memory stays where the system keeps it; an allocation moves whole.
      if (location)
        migration.memObjects.push_back(std::move(location.allocation));
    }
    return submitCommand(target, type, std::move(migration), event);
  });
}

} // namespace kiln::api

KILN_API cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue command_queue,
                                               cl_bool blocking_copy, void *dst_ptr,
                                               const void *src_ptr, size_t size,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event) {
  return enqueueSharedMemoryCopy(command_queue, CL_COMMAND_SVM_MEMCPY, blocking_copy, dst_ptr,
                                 src_ptr, size, num_events_in_wait_list, event_wait_list, event);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue command_queue, void *svm_ptr,
                                                const void *pattern, size_t pattern_size,
                                                size_t size, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event) {
  return enqueueSharedMemoryFill(command_queue, CL_COMMAND_SVM_MEMFILL, svm_ptr, pattern,
                                 pattern_size, size, num_events_in_wait_list, event_wait_list,
                                 event);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue command_queue, cl_bool blocking_map,
                                            cl_map_flags flags, void *svm_ptr, size_t size,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateSvmCommand(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    constexpr cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if (svm_ptr == nullptr || size == 0 || (flags & ~known) ||
        ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
      return CL_INVALID_VALUE;
    SvmLocation location = target.queue->context().svmAllocations().find(svm_ptr);
    if (!fitsInAllocation(location, size))
      return CL_INVALID_VALUE;
    if (!location) // the host's own memory is always the host's to use
      return submitCommand(target, CL_COMMAND_SVM_MAP, NoOperation{}, event, blocking_map);
    // The host uses the allocation's bytes where they are; the map records which bytes the
    // unmap hands back, and moves them to the host where a device keeps them elsewhere.
    bool writes = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
    location.allocation->recordMapping({svm_ptr, location.offset, size, writes, false});
    return submitCommand(
        target, CL_COMMAND_SVM_MAP,
        MapBuffer{std::move(location.allocation), svm_ptr, location.offset, size, false}, event,
        blocking_map);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue command_queue, void *svm_ptr,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateSvmCommand(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    if (svm_ptr == nullptr)
      return CL_INVALID_VALUE;
    SvmLocation location = target.queue->context().svmAllocations().find(svm_ptr);
    std::optional<MemObject::Mapping> mapping;
    if (!location || !(mapping = location.allocation->removeMapping(svm_ptr)))
      return submitCommand(target, CL_COMMAND_SVM_UNMAP, NoOperation{}, event);
    return submitCommand(
        target, CL_COMMAND_SVM_UNMAP,
        UnmapBuffer{std::move(location.allocation), svm_ptr, mapping->offset, mapping->size, false},
        event);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMigrateMem(
    cl_command_queue command_queue, cl_uint num_svm_pointers, const void **svm_pointers,
    const size_t *sizes, cl_mem_migration_flags flags, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  if (svm_pointers == nullptr && num_svm_pointers != 0)
    return toObject<Queue>(command_queue) == nullptr ? CL_INVALID_COMMAND_QUEUE : CL_INVALID_VALUE;
  return enqueueSharedMemoryMigration(
      command_queue, CL_COMMAND_SVM_MIGRATE_MEM,
      std::span<const void *const>(svm_pointers, svm_pointers ? num_svm_pointers : 0), sizes, flags,
      num_events_in_wait_list, event_wait_list, event);
}
