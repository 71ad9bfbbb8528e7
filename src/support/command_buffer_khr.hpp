// cl_khr_command_buffer as of its version 0.9.8, which Kiln implements: the names that Debian's
// OpenCL headers (an older provisional version of the extension) lack or define otherwise.
#pragma once

#include "support/icd_handles.hpp"

typedef cl_properties cl_command_properties_khr;

#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif
#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif

namespace kiln {
/// What every device reports (the runtime runs command buffers, the same way on each):
/// kernels that call printf may be recorded, kernels that enqueue kernels may not.
inline constexpr cl_device_command_buffer_capabilities_khr kCommandBufferCapabilities =
    CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR;
/// The queue properties a command buffer's queue may have; none is required.
inline constexpr cl_command_queue_properties kCommandBufferQueueProperties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
} // namespace kiln
