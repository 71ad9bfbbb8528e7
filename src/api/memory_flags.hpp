// Checks on cl_mem_flags shared by memory object creation and the memory commands.
#pragma once

#include "support/icd_handles.hpp"

#include <vector>

namespace kiln::api {

/// Known bits only, at most one kernel-access and one host-access flag, and USE_HOST_PTR not
/// combined with ALLOC_HOST_PTR or COPY_HOST_PTR.
bool hasValidAccessFlags(cl_mem_flags flags);

/// Whether the host may read (clEnqueueRead*, map for reading) a memory object with `flags`.
bool hostMayRead(cl_mem_flags flags);
/// Whether the host may write (clEnqueueWrite*, map for writing) a memory object with `flags`.
bool hostMayWrite(cl_mem_flags flags);

/// The property list of clCreateBufferWithProperties or clCreateImageWithProperties, as
/// CL_MEM_PROPERTIES reports it; false (CL_INVALID_PROPERTY) for a property Kiln does not know.
bool readMemoryProperties(const cl_mem_properties *properties,
                          std::vector<cl_mem_properties> &list);

/// The flags of a memory object made over `parent`'s storage (a sub-buffer, an image over a
/// buffer): the access it asks for, the rest inherited. False when the request conflicts with
/// the parent or names a host pointer.
bool inheritFlags(cl_mem_flags parent, cl_mem_flags requested, cl_mem_flags &result);

} // namespace kiln::api
