// cl_intel_unified_shared_memory: host, device and shared allocations, their queries and the
// commands on them. They are the context's SVM allocations (runtime/objects/svm_allocations.hpp)
// with the kind and device they were made for; the commands are SVM's.
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "api/shared_memory_commands.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/queue.hpp"

#include <bit>
#include <chrono>
#include <thread>

using namespace kiln;
using namespace kiln::api;

namespace {

/// CL_MEM_ALLOC_FLAGS_INTEL, the only property: false for anything else, or for flags that ask
/// for both initial placements.
bool readUsmProperties(const cl_mem_properties_intel *properties, cl_bitfield &flags) {
  constexpr cl_bitfield known = CL_MEM_ALLOC_WRITE_COMBINED_INTEL |
                                CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL |
                                CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
  constexpr cl_bitfield bothPlacements =
      CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
  flags = 0;
  bool seen = false;
  for (; properties != nullptr && properties[0] != 0; properties += 2) {
    if (properties[0] != CL_MEM_ALLOC_FLAGS_INTEL || seen)
      return false;
    seen = true;
    flags = properties[1];
    if ((flags & ~known) || (flags & bothPlacements) == bothPlacements)
      return false;
  }
  return true;
}

/// The bits of CL_DEVICE_*_MEM_CAPABILITIES_INTEL that say a device can use `kind`.
cl_bitfield capabilitiesFor(const Device &device, SharedMemoryKind kind) {
  const UsmCapabilities &usm = device.info().usm;
  switch (kind) {
  case SharedMemoryKind::UsmHost:
    return usm.host;
  case SharedMemoryKind::UsmDevice:
    return usm.device;
  default:
    return usm.singleDeviceShared;
  }
}

void *allocate(cl_context context, cl_device_id device, const cl_mem_properties_intel *properties,
               size_t size, cl_uint alignment, SharedMemoryKind kind, cl_int *errcodeRet) {
  return guardCreate<void *>(errcodeRet, [&](cl_int &error) -> void * {
    Context *owner = toObject<Context>(context);
    if (owner == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    Device *target = toObject<Device>(device);
    bool needsDevice = kind == SharedMemoryKind::UsmDevice;
    if ((device != nullptr || needsDevice) && (target == nullptr || !owner->hasDevice(target))) {
      error = CL_INVALID_DEVICE;
      return nullptr;
    }
    cl_bitfield flags = 0;
    if (!readUsmProperties(properties, flags)) {
      error = CL_INVALID_PROPERTY;
      return nullptr;
    }
    if (size == 0 || size > owner->maxAllocationSize()) {
      error = CL_INVALID_BUFFER_SIZE;
      return nullptr;
    }
    // Every allocation is aligned to the largest OpenCL C type (long16), and no further.
    if ((alignment != 0 && !std::has_single_bit(alignment)) ||
        alignment > MemObject::kBaseAlignment) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    bool usable =
        target != nullptr
            ? capabilitiesFor(*target, kind) != 0
            : std::any_of(owner->devices().begin(), owner->devices().end(),
                          [&](const Device *each) { return capabilitiesFor(*each, kind) != 0; });
    if (!usable) {
      error = CL_INVALID_OPERATION;
      return nullptr;
    }
    // Host allocations live in the host's memory (pinned, where a GPU reads it over the bus);
    // device and shared ones where devices use memory fastest, moving to the host on demand.
    MemoryPlacement placement =
        kind == SharedMemoryKind::UsmHost ? MemoryPlacement::Host : MemoryPlacement::Device;
    AlignedStorage storage = owner->allocateStorage(size, placement);
    if (!storage) {
      error = CL_OUT_OF_RESOURCES;
      return nullptr;
    }
    cl_mem_flags memoryFlags =
        CL_MEM_READ_WRITE | (placement == MemoryPlacement::Host ? CL_MEM_ALLOC_HOST_PTR : 0);
    Ref<MemObject> allocation = Ref<MemObject>::adopt(createObject<MemObject>(
        *owner, memoryFlags, size, nullptr, std::move(storage), std::vector<cl_mem_properties>{}));
    void *address = allocation->data();
    owner->svmAllocations().add(std::move(allocation), kind, target, flags);
    return address;
  });
}

cl_unified_shared_memory_type_intel typeOf(SharedMemoryKind kind) {
  switch (kind) {
  case SharedMemoryKind::UsmHost:
    return CL_MEM_TYPE_HOST_INTEL;
  case SharedMemoryKind::UsmDevice:
    return CL_MEM_TYPE_DEVICE_INTEL;
  case SharedMemoryKind::UsmShared:
    return CL_MEM_TYPE_SHARED_INTEL;
  case SharedMemoryKind::Svm:
    break;
  }
  // clSVMAlloc's allocations are shared memory as USM sees it.
  return CL_MEM_TYPE_SHARED_INTEL;
}

} // namespace

KILN_API void *CL_API_CALL clHostMemAllocINTEL(cl_context context,
                                               const cl_mem_properties_intel *properties,
                                               size_t size, cl_uint alignment,
                                               cl_int *errcode_ret) {
  return allocate(context, nullptr, properties, size, alignment, SharedMemoryKind::UsmHost,
                  errcode_ret);
}

KILN_API void *CL_API_CALL clDeviceMemAllocINTEL(cl_context context, cl_device_id device,
                                                 const cl_mem_properties_intel *properties,
                                                 size_t size, cl_uint alignment,
                                                 cl_int *errcode_ret) {
  return allocate(context, device, properties, size, alignment, SharedMemoryKind::UsmDevice,
                  errcode_ret);
}

KILN_API void *CL_API_CALL clSharedMemAllocINTEL(cl_context context, cl_device_id device,
                                                 const cl_mem_properties_intel *properties,
                                                 size_t size, cl_uint alignment,
                                                 cl_int *errcode_ret) {
  return allocate(context, device, properties, size, alignment, SharedMemoryKind::UsmShared,
                  errcode_ret);
}

KILN_API cl_int CL_API_CALL clMemFreeINTEL(cl_context context, void *ptr) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr)
    return CL_INVALID_CONTEXT;
  if (ptr == nullptr)
    return CL_SUCCESS;
  return guard([&] { return owner->svmAllocations().remove(ptr) ? CL_SUCCESS : CL_INVALID_VALUE; });
}

KILN_API cl_int CL_API_CALL clMemBlockingFreeINTEL(cl_context context, void *ptr) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr)
    return CL_INVALID_CONTEXT;
  if (ptr == nullptr)
    return CL_SUCCESS;
  return guard([&] {
    SvmLocation location = owner->svmAllocations().find(ptr);
    if (!location || location.offset != 0 || !owner->svmAllocations().remove(ptr))
      return CL_INVALID_VALUE;
    // Every command that uses the allocation holds a reference to it: once only this one is
    // left, none of them still runs.
    while (location.allocation->internalCount() > 1)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    return CL_SUCCESS;
  });
}

KILN_API cl_int CL_API_CALL clGetMemAllocInfoINTEL(cl_context context, const void *ptr,
                                                   cl_mem_info_intel param_name,
                                                   size_t param_value_size, void *param_value,
                                                   size_t *param_value_size_ret) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr)
    return CL_INVALID_CONTEXT;
  return guard([&]() -> cl_int {
    SvmLocation location = owner->svmAllocations().find(ptr);
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_MEM_ALLOC_TYPE_INTEL:
      return out(location ? typeOf(location.kind) : CL_MEM_TYPE_UNKNOWN_INTEL);
    case CL_MEM_ALLOC_BASE_PTR_INTEL:
      return out(location ? static_cast<void *>(location.allocation->data()) : nullptr);
    case CL_MEM_ALLOC_SIZE_INTEL:
      return out(location ? location.allocation->size() : size_t{0});
    case CL_MEM_ALLOC_DEVICE_INTEL:
      return out(static_cast<cl_device_id>(location.device));
    case CL_MEM_ALLOC_FLAGS_INTEL:
      return out(static_cast<cl_mem_alloc_flags_intel>(location.usmFlags));
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clEnqueueMemFillINTEL(cl_command_queue command_queue, void *dst_ptr,
                                                  const void *pattern, size_t pattern_size,
                                                  size_t size, cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event) {
  return enqueueSharedMemoryFill(command_queue, CL_COMMAND_MEMFILL_INTEL, dst_ptr, pattern,
                                 pattern_size, size, num_events_in_wait_list, event_wait_list,
                                 event);
}

KILN_API cl_int CL_API_CALL clEnqueueMemcpyINTEL(cl_command_queue command_queue, cl_bool blocking,
                                                 void *dst_ptr, const void *src_ptr, size_t size,
                                                 cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event) {
  return enqueueSharedMemoryCopy(command_queue, CL_COMMAND_MEMCPY_INTEL, blocking, dst_ptr, src_ptr,
                                 size, num_events_in_wait_list, event_wait_list, event);
}

KILN_API cl_int CL_API_CALL clEnqueueMigrateMemINTEL(
    cl_command_queue command_queue, const void *ptr, size_t size, cl_mem_migration_flags flags,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  const void *pointers[] = {ptr};
  size_t sizes[] = {size};
  return enqueueSharedMemoryMigration(command_queue, CL_COMMAND_MIGRATEMEM_INTEL, pointers, sizes,
                                      flags, num_events_in_wait_list, event_wait_list, event);
}

KILN_API cl_int CL_API_CALL clEnqueueMemAdviseINTEL(cl_command_queue command_queue, const void *ptr,
                                                    size_t size, cl_mem_advice_intel advice,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    // The extension defines no advice of its own; Kiln's devices take none (0 only).
    if (ptr == nullptr || size == 0 || advice != 0)
      return CL_INVALID_VALUE;
    SvmLocation location = target.queue->context().svmAllocations().find(ptr);
    if (location && size > location.bytesAfter())
      return CL_INVALID_VALUE;
    return submitCommand(target, CL_COMMAND_MEMADVISE_INTEL, NoOperation{}, event);
  });
}
