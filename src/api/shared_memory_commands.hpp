// The commands on SVM and USM pointers, which clEnqueueSVM* and cl_intel_unified_shared_memory's
// clEnqueueMem*INTEL share (they differ in their command types): validation and submission.
#pragma once

#include "support/icd_handles.hpp"

#include <span>

namespace kiln::api {

cl_int enqueueSharedMemoryCopy(cl_command_queue queue, cl_command_type type, bool blocking,
                               void *destination, const void *source, size_t size,
                               cl_uint numEvents, const cl_event *waitList, cl_event *event);

cl_int enqueueSharedMemoryFill(cl_command_queue queue, cl_command_type type, void *destination,
                               const void *pattern, size_t patternSize, size_t size,
                               cl_uint numEvents, const cl_event *waitList, cl_event *event);

/// Moves the allocations that hold `pointers` (each with its size in `sizes`, or all of it for 0
/// or a null `sizes`) to the host or the queue's device.
cl_int enqueueSharedMemoryMigration(cl_command_queue queue, cl_command_type type,
                                    std::span<const void *const> pointers, const size_t *sizes,
                                    cl_mem_migration_flags flags, cl_uint numEvents,
                                    const cl_event *waitList, cl_event *event);

} // namespace kiln::api
