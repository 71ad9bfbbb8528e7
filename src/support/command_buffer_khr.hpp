// cl_khr_command_buffer as of its version 0.9.8 and cl_khr_command_buffer_mutable_dispatch as of
// its version 0.9.5, which Kiln implements: the names that Debian's OpenCL headers (older
// provisional versions of both) lack or define otherwise.
#pragma once

#include "support/icd_handles.hpp"

typedef cl_properties cl_command_properties_khr;

#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif
#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif
#ifndef CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR
#define CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR 0x12A2
#endif
#ifndef CL_COMMAND_BUFFER_STATE_FINALIZED_KHR
#define CL_COMMAND_BUFFER_STATE_FINALIZED_KHR 2
#endif
#ifndef CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B7
#endif
#ifndef CL_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B8
#endif
#ifndef CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR
#define CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR (1 << 0)
#endif

namespace kiln {
/// What every device reports (the runtime runs command buffers, the same way on each):
/// kernels that call printf may be recorded, kernels that enqueue kernels may not; runs of one
/// command buffer may overlap (each runs the commands as they were when it was enqueued).
inline constexpr cl_device_command_buffer_capabilities_khr kCommandBufferCapabilities =
    CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
    CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;
/// The fields of a kernel command that clUpdateMutableCommandsKHR may change: all of them.
inline constexpr cl_mutable_dispatch_fields_khr kMutableDispatchFields =
    CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |
    CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR |
    CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// The command buffer flags Kiln accepts: a run snapshots the commands when it is enqueued, so
/// updates between runs that overlap are safe (simultaneous use).
inline constexpr cl_command_buffer_flags_khr kCommandBufferFlags =
    CL_COMMAND_BUFFER_MUTABLE_KHR | CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR;

/// clUpdateMutableCommandsKHR's one kind of update (0.9.5's value; Debian's header has an older
/// one) and its struct, whose 0.9.5 layout has no `type` and `next` members.
inline constexpr cl_uint kMutableDispatchConfigType = 0;
struct MutableDispatchConfig {
  cl_mutable_command_khr command;
  cl_uint num_args;
  cl_uint num_svm_args;
  cl_uint num_exec_infos;
  cl_uint work_dim;
  const cl_mutable_dispatch_arg_khr *arg_list;
  const cl_mutable_dispatch_arg_khr *arg_svm_list;
  const cl_mutable_dispatch_exec_info_khr *exec_info_list;
  const size_t *global_work_offset;
  const size_t *global_work_size;
  const size_t *local_work_size;
};

/// The queue properties a command buffer's queue may have; none is required.
inline constexpr cl_command_queue_properties kCommandBufferQueueProperties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
} // namespace kiln
