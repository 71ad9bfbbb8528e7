// cl_khr_command_buffer (version 0.9.8): recording commands into a command buffer, finalizing
// it, and enqueueing it. Recording reuses each command's own checks (recordable_commands.hpp);
// the runtime replays the recording (runtime/scheduling/command_buffer_replay.hpp). Without
// cl_khr_command_buffer_multi_device a command buffer has exactly one queue, and without
// cl_khr_command_buffer_mutable_dispatch no command is mutable.
#include "api/command_buffer_api.hpp"
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "api/mutable_dispatch.hpp"
#include "api/recordable_commands.hpp"
#include "runtime/objects/command_buffer.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/program.hpp"
#include "runtime/objects/queue.hpp"

#include <algorithm>
#include <span>

using namespace kiln;
using namespace kiln::api;

namespace {

/// What every clCommand*KHR call checks before its command's own arguments; fills `target` so
/// that the command records into `buffer` on its queue.
cl_int validateRecording(cl_command_buffer_khr buffer, cl_command_queue queue,
                         cl_uint numSyncPoints, const cl_sync_point_khr *syncPoints,
                         cl_sync_point_khr *syncPoint, cl_mutable_command_khr *mutableHandle,
                         EnqueueTarget &target, bool mayBeMutable = false) {
  CommandBuffer *self = toObject<CommandBuffer>(buffer);
  if (self == nullptr)
    return CL_INVALID_COMMAND_BUFFER_KHR;
  // Another queue than the buffer's is for cl_khr_command_buffer_multi_device.
  if (queue != nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  if (self->isFinalized())
    return CL_INVALID_OPERATION;
  // Only kernel commands are mutable (cl_khr_command_buffer_mutable_dispatch).
  if (mutableHandle != nullptr && !mayBeMutable)
    return CL_INVALID_VALUE;
  if ((numSyncPoints == 0) != (syncPoints == nullptr))
    return CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
  for (cl_uint index = 0; index < numSyncPoints; ++index)
    if (!self->hasSyncPoint(syncPoints[index]))
      return CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
  target.queue = &self->queue();
  target.recording = {self, syncPoint};
  return CL_SUCCESS;
}

/// Command properties: no property is defined without the mutable-dispatch extension.
bool validCommandProperties(const cl_command_properties_khr *properties) {
  return properties == nullptr || properties[0] == 0;
}

/// A property whose value is a bitfield: its name, the bits it may have, and its value (its
/// default until a list gives it).
struct BitfieldProperty {
  cl_properties name;
  cl_bitfield allowed;
  cl_bitfield value;
};

/// Reads a property list made of `known` properties, each at most once and with no bit its entry
/// does not allow (else CL_INVALID_VALUE). Their values go to `known`, the list as given (with its
/// terminating 0) to `list`.
cl_int readBitfieldProperties(const cl_properties *properties, std::span<BitfieldProperty> known,
                              std::vector<cl_properties> &list) {
  if (properties == nullptr)
    return CL_SUCCESS;
  std::vector<bool> seen(known.size());
  const cl_properties *entry = properties;
  for (; *entry != 0; entry += 2) {
    auto found = std::find_if(known.begin(), known.end(), [&](const BitfieldProperty &property) {
      return property.name == entry[0];
    });
    size_t index = found - known.begin();
    if (found == known.end() || seen[index] || (entry[1] & ~found->allowed))
      return CL_INVALID_VALUE;
    seen[index] = true;
    found->value = entry[1];
  }
  list.assign(properties, entry + 1);
  return CL_SUCCESS;
}

/// A command buffer's properties: its flags, and the promises of mutable dispatch.
cl_int readProperties(const cl_command_buffer_properties_khr *properties,
                      std::vector<cl_command_buffer_properties_khr> &list,
                      cl_command_buffer_flags_khr &flags) {
  BitfieldProperty known[] = {{CL_COMMAND_BUFFER_FLAGS_KHR, kCommandBufferFlags, 0},
                              {CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR,
                               CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR, 0}};
  cl_int error = readBitfieldProperties(properties, known, list);
  flags = known[0].value;
  return error;
}

cl_command_buffer_khr createCommandBuffer(cl_uint num_queues, const cl_command_queue *queues,
                                          const cl_command_buffer_properties_khr *properties,
                                          cl_int *errcode_ret) {
  return guardCreate<cl_command_buffer_khr>(
      errcode_ret, [&](cl_int &error) -> cl_command_buffer_khr {
        if (num_queues != 1 || queues == nullptr) {
          error = CL_INVALID_VALUE;
          return nullptr;
        }
        Queue *queue = toHostQueue(queues[0]);
        if (queue == nullptr) {
          error = CL_INVALID_COMMAND_QUEUE;
          return nullptr;
        }
        std::vector<cl_command_buffer_properties_khr> list;
        cl_command_buffer_flags_khr flags;
        if ((error = readProperties(properties, list, flags)) != CL_SUCCESS)
          return nullptr;
        if (queue->properties() & ~kCommandBufferQueueProperties) {
          error = CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
          return nullptr;
        }
        return createObject<CommandBuffer>(*queue, std::move(list), flags);
      });
}

cl_int finalizeCommandBuffer(cl_command_buffer_khr command_buffer) {
  CommandBuffer *self = toObject<CommandBuffer>(command_buffer);
  if (self == nullptr)
    return CL_INVALID_COMMAND_BUFFER_KHR;
  return self->finalize() ? CL_SUCCESS : CL_INVALID_OPERATION;
}

cl_int retainCommandBuffer(cl_command_buffer_khr command_buffer) {
  return retainObject<CommandBuffer>(command_buffer, CL_INVALID_COMMAND_BUFFER_KHR);
}

cl_int releaseCommandBuffer(cl_command_buffer_khr command_buffer) {
  return releaseObject<CommandBuffer>(command_buffer, CL_INVALID_COMMAND_BUFFER_KHR);
}

/// The queue a run of `buffer` goes to: its own, or one the application names instead, of the
/// same device and context, with properties a command buffer's queue may have.
cl_int queueForRun(const CommandBuffer &buffer, cl_uint numQueues, cl_command_queue *queues,
                   Queue *&queue) {
  if ((numQueues == 0) != (queues == nullptr))
    return CL_INVALID_VALUE;
  if (numQueues == 0) {
    queue = &buffer.queue();
    return CL_SUCCESS;
  }
  if (numQueues != 1)
    return CL_INVALID_VALUE;
  queue = toHostQueue(queues[0]);
  if (queue == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  if (&queue->context() != &buffer.context())
    return CL_INVALID_CONTEXT;
  if (&queue->device() != &buffer.queue().device() ||
      (queue->properties() & ~kCommandBufferQueueProperties))
    return CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
  return CL_SUCCESS;
}

cl_int enqueueCommandBuffer(cl_uint num_queues, cl_command_queue *queues,
                            cl_command_buffer_khr command_buffer, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    CommandBuffer *self = toObject<CommandBuffer>(command_buffer);
    if (self == nullptr)
      return CL_INVALID_COMMAND_BUFFER_KHR;
    if (!self->isExecutable())
      return CL_INVALID_OPERATION;
    EnqueueTarget target;
    if (cl_int error = queueForRun(*self, num_queues, queues, target.queue))
      return error;
    if (cl_int error = validateWaitList(num_events_in_wait_list, event_wait_list, &self->context(),
                                        target.waitList))
      return error;
    return submitCommand(target, CL_COMMAND_COMMAND_BUFFER_KHR, RunCommandBuffer{self->commands()},
                         event);
  });
}

cl_int commandBarrier(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                      const cl_command_properties_khr *properties,
                      cl_uint num_sync_points_in_wait_list,
                      const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
                      cl_mutable_command_khr *mutable_handle) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateRecording(command_buffer, command_queue, num_sync_points_in_wait_list,
                              sync_point_wait_list, sync_point, mutable_handle, target))
      return error;
    if (!validCommandProperties(properties))
      return CL_INVALID_VALUE;
    return submitCommand(target, CL_COMMAND_BARRIER, NoOperation{}, nullptr);
  });
}

/// The body of every clCommand*KHR call but the barrier: the recording's checks, then the
/// command's own (`record`, given the target).
template <typename Record>
cl_int recordCommand(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                     const cl_command_properties_khr *properties, cl_uint numSyncPoints,
                     const cl_sync_point_khr *syncPoints, cl_sync_point_khr *syncPoint,
                     cl_mutable_command_khr *mutableHandle, Record &&record) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error = validateRecording(command_buffer, command_queue, numSyncPoints, syncPoints,
                                         syncPoint, mutableHandle, target))
      return error;
    if (!validCommandProperties(properties))
      return CL_INVALID_VALUE;
    return record(target);
  });
}

cl_int commandCopyBuffer(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                         const cl_command_properties_khr *properties, cl_mem src_buffer,
                         cl_mem dst_buffer, size_t src_offset, size_t dst_offset, size_t size,
                         cl_uint num_sync_points_in_wait_list,
                         const cl_sync_point_khr *sync_point_wait_list,
                         cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return copyBuffer(target, src_buffer, dst_buffer, src_offset, dst_offset,
                                           size, nullptr);
                       });
}

cl_int commandCopyBufferRect(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                             const cl_command_properties_khr *properties, cl_mem src_buffer,
                             cl_mem dst_buffer, const size_t *src_origin, const size_t *dst_origin,
                             const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
                             size_t dst_row_pitch, size_t dst_slice_pitch,
                             cl_uint num_sync_points_in_wait_list,
                             const cl_sync_point_khr *sync_point_wait_list,
                             cl_sync_point_khr *sync_point,
                             cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return copyBufferRect(target, src_buffer, dst_buffer, src_origin,
                                               dst_origin, region, src_row_pitch, src_slice_pitch,
                                               dst_row_pitch, dst_slice_pitch, nullptr);
                       });
}

cl_int commandCopyBufferToImage(cl_command_buffer_khr command_buffer,
                                cl_command_queue command_queue,
                                const cl_command_properties_khr *properties, cl_mem src_buffer,
                                cl_mem dst_image, size_t src_offset, const size_t *dst_origin,
                                const size_t *region, cl_uint num_sync_points_in_wait_list,
                                const cl_sync_point_khr *sync_point_wait_list,
                                cl_sync_point_khr *sync_point,
                                cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return copyBufferToImage(target, src_buffer, dst_image, src_offset,
                                                  dst_origin, region, nullptr);
                       });
}

cl_int commandCopyImage(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                        const cl_command_properties_khr *properties, cl_mem src_image,
                        cl_mem dst_image, const size_t *src_origin, const size_t *dst_origin,
                        const size_t *region, cl_uint num_sync_points_in_wait_list,
                        const cl_sync_point_khr *sync_point_wait_list,
                        cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return copyImage(target, src_image, dst_image, src_origin, dst_origin,
                                          region, nullptr);
                       });
}

cl_int commandCopyImageToBuffer(cl_command_buffer_khr command_buffer,
                                cl_command_queue command_queue,
                                const cl_command_properties_khr *properties, cl_mem src_image,
                                cl_mem dst_buffer, const size_t *src_origin, const size_t *region,
                                size_t dst_offset, cl_uint num_sync_points_in_wait_list,
                                const cl_sync_point_khr *sync_point_wait_list,
                                cl_sync_point_khr *sync_point,
                                cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return copyImageToBuffer(target, src_image, dst_buffer, src_origin, region,
                                                  dst_offset, nullptr);
                       });
}

cl_int commandFillBuffer(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                         const cl_command_properties_khr *properties, cl_mem buffer,
                         const void *pattern, size_t pattern_size, size_t offset, size_t size,
                         cl_uint num_sync_points_in_wait_list,
                         const cl_sync_point_khr *sync_point_wait_list,
                         cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return fillBuffer(target, buffer, pattern, pattern_size, offset, size,
                                           nullptr);
                       });
}

cl_int commandFillImage(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                        const cl_command_properties_khr *properties, cl_mem image,
                        const void *fill_color, const size_t *origin, const size_t *region,
                        cl_uint num_sync_points_in_wait_list,
                        const cl_sync_point_khr *sync_point_wait_list,
                        cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return fillImage(target, image, fill_color, origin, region, nullptr);
                       });
}

cl_int commandSvmMemcpy(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                        const cl_command_properties_khr *properties, void *dst_ptr,
                        const void *src_ptr, size_t size, cl_uint num_sync_points_in_wait_list,
                        const cl_sync_point_khr *sync_point_wait_list,
                        cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return copySharedMemory(target, CL_COMMAND_SVM_MEMCPY, false, dst_ptr,
                                                 src_ptr, size, nullptr);
                       });
}

cl_int commandSvmMemFill(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                         const cl_command_properties_khr *properties, void *svm_ptr,
                         const void *pattern, size_t pattern_size, size_t size,
                         cl_uint num_sync_points_in_wait_list,
                         const cl_sync_point_khr *sync_point_wait_list,
                         cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return recordCommand(command_buffer, command_queue, properties, num_sync_points_in_wait_list,
                       sync_point_wait_list, sync_point, mutable_handle, [&](auto &target) {
                         return fillSharedMemory(target, CL_COMMAND_SVM_MEMFILL, svm_ptr, pattern,
                                                 pattern_size, size, nullptr);
                       });
}

/// A kernel command's properties: which fields updates may change (all by default) and the
/// application's promises.
cl_int readKernelCommandProperties(const cl_command_properties_khr *properties,
                                   std::vector<cl_command_properties_khr> &list,
                                   cl_mutable_dispatch_fields_khr &updatable,
                                   cl_bitfield &asserts) {
  BitfieldProperty known[] = {
      {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, kMutableDispatchFields, kMutableDispatchFields},
      {CL_MUTABLE_DISPATCH_ASSERTS_KHR, CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR,
       0}};
  cl_int error = readBitfieldProperties(properties, known, list);
  updatable = known[0].value;
  asserts = known[1].value;
  return error;
}

/// The promises of a command buffer's CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR.
cl_bitfield bufferAsserts(const CommandBuffer &buffer) {
  const auto &list = buffer.properties();
  for (size_t i = 0; i + 1 < list.size(); i += 2)
    if (list[i] == CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR)
      return list[i + 1];
  return 0;
}

cl_int commandNDRangeKernel(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                            const cl_command_properties_khr *properties, cl_kernel kernel,
                            cl_uint work_dim, const size_t *global_work_offset,
                            const size_t *global_work_size, const size_t *local_work_size,
                            cl_uint num_sync_points_in_wait_list,
                            const cl_sync_point_khr *sync_point_wait_list,
                            cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  return guard([&]() -> cl_int {
    EnqueueTarget target;
    cl_sync_point_khr point = 0;
    if (cl_int error =
            validateRecording(command_buffer, command_queue, num_sync_points_in_wait_list,
                              sync_point_wait_list, &point, mutable_handle, target, true))
      return error;
    CommandBuffer &buffer = *target.recording.buffer;
    std::vector<cl_command_properties_khr> list;
    cl_mutable_dispatch_fields_khr updatable;
    cl_bitfield asserts;
    if (cl_int error = readKernelCommandProperties(properties, list, updatable, asserts))
      return error;
    if (((asserts | bufferAsserts(buffer)) &
         CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR) &&
        local_work_size == nullptr)
      return CL_INVALID_VALUE;
    // CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR leaves out device-side enqueue.
    Kernel *self = toObject<Kernel>(kernel);
    if (self != nullptr && self->info().usesDeviceEnqueue)
      return CL_INVALID_OPERATION;
    // A mutable command may leave arguments for updates to set; the buffer runs once they are.
    bool awaitsArguments = mutable_handle != nullptr && self != nullptr &&
                           (updatable & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR) && !self->allArgsSet();
    if (awaitsArguments) {
      // Checked as far as it can be; the launch is built when the arguments come.
      if (cl_int error = checkLaunchShape(*target.queue, kernel, work_dim, global_work_offset,
                                          global_work_size, local_work_size))
        return error;
      if (cl_int error = submitCommand(target, CL_COMMAND_NDRANGE_KERNEL, NoOperation{}, nullptr))
        return error;
    } else if (cl_int error =
                   launchKernel(target, kernel, work_dim, global_work_offset, global_work_size,
                                local_work_size, nullptr, CL_COMMAND_NDRANGE_KERNEL)) {
      return error;
    }
    if (sync_point != nullptr)
      *sync_point = point;
    if (mutable_handle != nullptr)
      *mutable_handle = &recordMutableCommand(buffer, point - 1, *self, updatable, std::move(list),
                                              awaitsArguments, work_dim, global_work_offset,
                                              global_work_size, local_work_size);
    return CL_SUCCESS;
  });
}

cl_int getCommandBufferInfo(cl_command_buffer_khr command_buffer,
                            cl_command_buffer_info_khr param_name, size_t param_value_size,
                            void *param_value, size_t *param_value_size_ret) {
  CommandBuffer *self = toObject<CommandBuffer>(command_buffer);
  if (self == nullptr)
    return CL_INVALID_COMMAND_BUFFER_KHR;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_COMMAND_BUFFER_QUEUES_KHR:
      return out(static_cast<cl_command_queue>(&self->queue()));
    case CL_COMMAND_BUFFER_NUM_QUEUES_KHR:
      return out(cl_uint{1});
    case CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR:
      return out(self->externalCount());
    case CL_COMMAND_BUFFER_STATE_KHR:
      return out(static_cast<cl_command_buffer_state_khr>(
          !self->isFinalized()   ? CL_COMMAND_BUFFER_STATE_RECORDING_KHR
          : self->isExecutable() ? CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
                                 : CL_COMMAND_BUFFER_STATE_FINALIZED_KHR));
    case CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR:
      return out(self->properties());
    case CL_COMMAND_BUFFER_CONTEXT_KHR:
      return out(static_cast<cl_context>(&self->context()));
    default:
      return CL_INVALID_VALUE;
    }
  });
}

} // namespace

namespace kiln::api {

void *commandBufferFunction(std::string_view name) {
  static const std::pair<std::string_view, void *> kFunctions[] = {
      {"clCreateCommandBufferKHR", reinterpret_cast<void *>(&createCommandBuffer)},
      {"clFinalizeCommandBufferKHR", reinterpret_cast<void *>(&finalizeCommandBuffer)},
      {"clRetainCommandBufferKHR", reinterpret_cast<void *>(&retainCommandBuffer)},
      {"clReleaseCommandBufferKHR", reinterpret_cast<void *>(&releaseCommandBuffer)},
      {"clEnqueueCommandBufferKHR", reinterpret_cast<void *>(&enqueueCommandBuffer)},
      {"clCommandBarrierWithWaitListKHR", reinterpret_cast<void *>(&commandBarrier)},
      {"clCommandCopyBufferKHR", reinterpret_cast<void *>(&commandCopyBuffer)},
      {"clCommandCopyBufferRectKHR", reinterpret_cast<void *>(&commandCopyBufferRect)},
      {"clCommandCopyBufferToImageKHR", reinterpret_cast<void *>(&commandCopyBufferToImage)},
      {"clCommandCopyImageKHR", reinterpret_cast<void *>(&commandCopyImage)},
      {"clCommandCopyImageToBufferKHR", reinterpret_cast<void *>(&commandCopyImageToBuffer)},
      {"clCommandFillBufferKHR", reinterpret_cast<void *>(&commandFillBuffer)},
      {"clCommandFillImageKHR", reinterpret_cast<void *>(&commandFillImage)},
      {"clCommandSVMMemcpyKHR", reinterpret_cast<void *>(&commandSvmMemcpy)},
      {"clCommandSVMMemFillKHR", reinterpret_cast<void *>(&commandSvmMemFill)},
      {"clCommandNDRangeKernelKHR", reinterpret_cast<void *>(&commandNDRangeKernel)},
      {"clGetCommandBufferInfoKHR", reinterpret_cast<void *>(&getCommandBufferInfo)},
  };
  for (const auto &[known, function] : kFunctions)
    if (known == name)
      return function;
  return mutableDispatchFunction(name);
}

} // namespace kiln::api
