// Memory object entry points: buffers, sub-buffers and pipes (images: image_api.cpp, SVM:
// svm_api.cpp).
#include "api/api_support.hpp"
#include "api/memory_flags.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/pipe_storage.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace kiln;
using namespace kiln::api;

namespace kiln::api {

bool hasValidAccessFlags(cl_mem_flags flags) {
  constexpr cl_mem_flags known = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |
                                 CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
                                 CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_WRITE_ONLY |
                                 CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
  if (flags & ~known)
    return false;
  auto count = [](cl_mem_flags bits) { return __builtin_popcountll(bits); };
  if (count(flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)) > 1)
    return false;
  if (count(flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)) > 1)
    return false;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return false;
  return true;
}

bool hostMayRead(cl_mem_flags flags) {
  return !(flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}

bool hostMayWrite(cl_mem_flags flags) {
  return !(flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

bool readMemoryProperties(const cl_mem_properties *properties,
                          std::vector<cl_mem_properties> &list) {
  // OpenCL 3.0 defines no buffer or image properties (only extensions do): any entry is
  // unknown.
  if (properties == nullptr)
    return true;
  if (properties[0] != 0)
    return false;
  list.push_back(0);
  return true;
}

bool inheritFlags(cl_mem_flags parent, cl_mem_flags requested, cl_mem_flags &result) {
  constexpr cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
  constexpr cl_mem_flags host =
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
  constexpr cl_mem_flags hostPointer =
      CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
  if (!hasValidAccessFlags(requested) || (requested & hostPointer))
    return false;
  if ((parent & CL_MEM_WRITE_ONLY) && (requested & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
    return false;
  if ((parent & CL_MEM_READ_ONLY) && (requested & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
    return false;
  if ((parent & CL_MEM_HOST_WRITE_ONLY) && (requested & CL_MEM_HOST_READ_ONLY))
    return false;
  if ((parent & CL_MEM_HOST_READ_ONLY) && (requested & CL_MEM_HOST_WRITE_ONLY))
    return false;
  if ((parent & CL_MEM_HOST_NO_ACCESS) &&
      (requested & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return false;
  result = (requested & access ? requested & access : parent & access) |
           (requested & host ? requested & host : parent & host) | (parent & hostPointer);
  return true;
}

} // namespace kiln::api

namespace {

cl_mem createBuffer(cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
                    size_t size, void *hostPtr, cl_int &error) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr) {
    error = CL_INVALID_CONTEXT;
    return nullptr;
  }
  std::vector<cl_mem_properties> propertyList;
  if (!readMemoryProperties(properties, propertyList)) {
    error = CL_INVALID_PROPERTY;
    return nullptr;
  }
  if (!hasValidAccessFlags(flags)) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  if (size == 0 || size > owner->maxAllocationSize()) {
    error = CL_INVALID_BUFFER_SIZE;
    return nullptr;
  }
  bool needsHostPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (needsHostPtr != (hostPtr != nullptr)) {
    error = CL_INVALID_HOST_PTR;
    return nullptr;
  }
  if (!(flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)))
    flags |= CL_MEM_READ_WRITE;

  // A buffer over SVM memory (CL_MEM_USES_SVM_POINTER) lies within its allocation.
  SvmLocation svm;
  if (flags & CL_MEM_USE_HOST_PTR)
    svm = owner->svmAllocations().find(hostPtr);
  if (svm && size > svm.bytesAfter()) {
    error = CL_INVALID_BUFFER_SIZE;
    return nullptr;
  }

  AlignedStorage storage;
  // CL_MEM_USE_HOST_PTR buffers are the application's memory itself, unless a device of the
  // context cannot address that: they then cache it in memory every device addresses (the
  // specification allows this; maps and unmaps keep the two in step). SVM memory is memory
  // every device addresses.
  bool cachesHostMemory = (flags & CL_MEM_USE_HOST_PTR) && owner->hasDeviceMemory() && !svm;
  if (!(flags & CL_MEM_USE_HOST_PTR) || cachesHostMemory) {
    storage = owner->allocateStorage(size, placementOf(flags));
    if (!storage) {
      error = CL_MEM_OBJECT_ALLOCATION_FAILURE;
      return nullptr;
    }
    if (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR))
      std::memcpy(storage.get(), hostPtr, size);
  }
  // CL_MEM_HOST_PTR reports the pointer only for CL_MEM_USE_HOST_PTR buffers.
  void *reportedHostPtr = (flags & CL_MEM_USE_HOST_PTR) ? hostPtr : nullptr;
  return createObject<MemObject>(*owner, flags, size, reportedHostPtr, std::move(storage),
                                 std::move(propertyList));
}

} // namespace

KILN_API cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                           void *host_ptr, cl_int *errcode_ret) {
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createBuffer(context, nullptr, flags, size, host_ptr, error);
  });
}

KILN_API cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context,
                                                         const cl_mem_properties *properties,
                                                         cl_mem_flags flags, size_t size,
                                                         void *host_ptr, cl_int *errcode_ret) {
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createBuffer(context, properties, flags, size, host_ptr, error);
  });
}

KILN_API cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                              cl_buffer_create_type buffer_create_type,
                                              const void *buffer_create_info, cl_int *errcode_ret) {
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) -> cl_mem {
    MemObject *parent = toObject<MemObject>(buffer);
    if (parent == nullptr || parent->parent() != nullptr ||
        parent->type() != CL_MEM_OBJECT_BUFFER) {
      error = CL_INVALID_MEM_OBJECT;
      return nullptr;
    }
    cl_mem_flags effective;
    if (!inheritFlags(parent->flags(), flags, effective) ||
        buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION || buffer_create_info == nullptr) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    const auto *region = static_cast<const cl_buffer_region *>(buffer_create_info);
    if (region->size == 0) {
      error = CL_INVALID_BUFFER_SIZE;
      return nullptr;
    }
    if (region->origin > parent->size() || region->size > parent->size() - region->origin) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    for (const Device *device : parent->context().devices())
      if (region->origin % (device->info().memBaseAddrAlignBits / 8) != 0) {
        error = CL_MISALIGNED_SUB_BUFFER_OFFSET;
        return nullptr;
      }
    return createObject<MemObject>(*parent, effective, region->origin, region->size);
  });
}

KILN_API cl_int CL_API_CALL clRetainMemObject(cl_mem memobj) {
  return retainObject<MemObject>(memobj, CL_INVALID_MEM_OBJECT);
}

KILN_API cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj) {
  return releaseObject<MemObject>(memobj, CL_INVALID_MEM_OBJECT);
}

KILN_API cl_int CL_API_CALL clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret) {
  MemObject *self = toObject<MemObject>(memobj);
  if (self == nullptr)
    return CL_INVALID_MEM_OBJECT;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_MEM_TYPE:
      return out(self->type());
    case CL_MEM_FLAGS:
      return out(self->flags());
    case CL_MEM_SIZE:
      return out(self->size());
    case CL_MEM_HOST_PTR:
      return out(self->hostPointer());
    case CL_MEM_MAP_COUNT:
      return out(self->mapCount());
    case CL_MEM_REFERENCE_COUNT:
      return out(self->externalCount());
    case CL_MEM_CONTEXT:
      return out(static_cast<cl_context>(&self->context()));
    case CL_MEM_ASSOCIATED_MEMOBJECT:
      return out(static_cast<cl_mem>(self->parent()));
    case CL_MEM_OFFSET:
      return out(self->origin());
    case CL_MEM_USES_SVM_POINTER:
      return out.boolean(self->hostPointer() != nullptr &&
                         self->context().svmAllocations().find(self->hostPointer()));
    case CL_MEM_PROPERTIES:
      return out(self->properties());
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clSetMemObjectDestructorCallback(
    cl_mem memobj, void(CL_CALLBACK *pfn_notify)(cl_mem, void *), void *user_data) {
  MemObject *self = toObject<MemObject>(memobj);
  if (self == nullptr)
    return CL_INVALID_MEM_OBJECT;
  if (pfn_notify == nullptr)
    return CL_INVALID_VALUE;
  return guard([&] {
    self->addDestructorCallback(pfn_notify, user_data);
    return CL_SUCCESS;
  });
}

// Pipes: a memory object of the context whose storage only kernels use (pipe_storage.hpp).

namespace {

/// Whether `flags` are what clCreatePipe accepts: CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS,
/// both, or 0 (which means both).
bool validPipeFlags(cl_mem_flags flags) {
  return (flags & ~(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS)) == 0;
}

/// The largest CL_DEVICE_PIPE_MAX_PACKET_SIZE of the context's devices that support pipes;
/// nothing when none does.
std::optional<cl_uint> largestPipePacket(const Context &context) {
  std::optional<cl_uint> largest;
  for (const Device *device : context.devices())
    if (device->info().pipeSupport)
      largest = std::max(largest.value_or(0), device->info().pipeMaxPacketSize);
  return largest;
}

cl_mem createPipe(cl_context context, cl_mem_flags flags, cl_uint packetSize, cl_uint maxPackets,
                  const cl_pipe_properties *properties, cl_int &error) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr) {
    error = CL_INVALID_CONTEXT;
    return nullptr;
  }
  if (!validPipeFlags(flags) || properties != nullptr) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  std::optional<cl_uint> largestPacket = largestPipePacket(*owner);
  if (!largestPacket) {
    error = CL_INVALID_OPERATION;
    return nullptr;
  }
  std::optional<PipeLayout> layout = pipeLayoutOf(packetSize, maxPackets);
  if (packetSize > *largestPacket || !layout) {
    error = CL_INVALID_PIPE_SIZE;
    return nullptr;
  }
  if (layout->totalBytes > owner->maxAllocationSize()) {
    error = CL_INVALID_PIPE_SIZE;
    return nullptr;
  }
  AlignedStorage storage = owner->allocateStorage(layout->totalBytes, MemoryPlacement::Device);
  if (!storage) {
    error = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
  }
  initializePipeStorage(storage.get(), *layout);
  if (flags == 0)
    flags = CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS;
  return createObject<MemObject>(*owner, flags, PipeDescription{packetSize, maxPackets},
                                 layout->totalBytes, std::move(storage));
}

} // namespace

KILN_API cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags,
                                         cl_uint pipe_packet_size, cl_uint pipe_max_packets,
                                         const cl_pipe_properties *properties,
                                         cl_int *errcode_ret) {
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createPipe(context, flags, pipe_packet_size, pipe_max_packets, properties, error);
  });
}

KILN_API cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name,
                                          size_t param_value_size, void *param_value,
                                          size_t *param_value_size_ret) {
  MemObject *self = toObject<MemObject>(pipe);
  if (self == nullptr || self->pipe() == nullptr)
    return CL_INVALID_MEM_OBJECT;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_PIPE_PACKET_SIZE:
      return out(self->pipe()->packetSize);
    case CL_PIPE_MAX_PACKETS:
      return out(self->pipe()->maxPackets);
    case CL_PIPE_PROPERTIES: // clCreatePipe takes no properties
      return out(std::vector<cl_pipe_properties>{});
    default:
      return CL_INVALID_VALUE;
    }
  });
}
