// Checks on cl_mem_flags shared by buffer creation and the memory commands.
#pragma once

#include "runtime/icd_handles.hpp"

namespace kiln::api {

/// Known bits only, at most one kernel-access and one host-access flag, and USE_HOST_PTR not
/// combined with ALLOC_HOST_PTR or COPY_HOST_PTR.
bool hasValidAccessFlags(cl_mem_flags flags);

/// Whether the host may read (clEnqueueRead*, map for reading) a memory object with `flags`.
bool hostMayRead(cl_mem_flags flags);
/// Whether the host may write (clEnqueueWrite*, map for writing) a memory object with `flags`.
bool hostMayWrite(cl_mem_flags flags);

} // namespace kiln::api
