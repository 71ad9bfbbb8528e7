// Commands that run code: NDRange kernels, tasks, native kernels.
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "api/recordable_commands.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/program.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/local_size.hpp"

#include <algorithm>
#include <array>
#include <limits>

using namespace kiln;
using namespace kiln::api;

namespace {

/// The kernel with all its arguments set (unless `argumentsMayWait`), and its code for
/// `queue`'s device.
cl_int validateKernelFor(const Queue &queue, cl_kernel kernel, Kernel *&self,
                         const DeviceKernel *&code, bool argumentsMayWait = false) {
  self = toObject<Kernel>(kernel);
  if (self == nullptr)
    return CL_INVALID_KERNEL;
  if (&self->program().context() != &queue.context())
    return CL_INVALID_CONTEXT;
  code = self->deviceKernel(&queue.device());
  if (code == nullptr)
    return CL_INVALID_PROGRAM_EXECUTABLE;
  if (!argumentsMayWait && !self->allArgsSet())
    return CL_INVALID_KERNEL_ARGS;
  return CL_SUCCESS;
}

/// The queue, the kernel with all its arguments set, and its code for the queue's device.
cl_int validateKernelOnQueue(cl_command_queue command_queue, cl_kernel kernel, Queue *&queue,
                             Kernel *&self, const DeviceKernel *&code) {
  queue = toHostQueue(command_queue);
  if (queue == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  return validateKernelFor(*queue, kernel, self, code);
}

/// The local size Kiln runs `kernel` with when the application gives none: its required size,
/// else chooseLocalSize's pick. clGetKernelSuggestedLocalWorkSizeKHR reports the same.
std::array<size_t, 3> defaultLocalSize(const Kernel &kernel, const Device &device,
                                       const DeviceKernel &code, cl_uint workDim,
                                       const std::array<size_t, 3> &global) {
  const auto &required = kernel.info().requiredWorkGroupSize;
  if (required[0] != 0)
    return {required[0], required[1], required[2]};
  return chooseLocalSize(workDim, global, LocalSizeLimits::of(code.info(), device.info()));
}

/// Checks the work sizes of an NDRange and fills `range` (choosing a local size if none).
cl_int validateRange(const Kernel &kernel, const Device &device, const DeviceKernel &code,
                     cl_uint workDim, const size_t *offset, const size_t *global,
                     const size_t *local, NDRange &range) {
  const DeviceInfo &info = device.info();
  if (workDim < 1 || workDim > info.maxWorkItemDimensions)
    return CL_INVALID_WORK_DIMENSION;
  range.workDim = workDim;
  for (cl_uint dim = 0; dim < workDim; ++dim) {
    // Since OpenCL 2.1 a NULL or zero global size is an empty launch that trivially succeeds.
    range.global[dim] = global != nullptr ? global[dim] : 0;
    range.offset[dim] = offset != nullptr ? offset[dim] : 0;
    if (range.offset[dim] > std::numeric_limits<size_t>::max() - range.global[dim])
      return CL_INVALID_GLOBAL_OFFSET;
  }

  const auto &required = kernel.info().requiredWorkGroupSize;
  bool hasRequired = required[0] != 0;
  bool uniform = kernel.program().withBuild(
      &device, [](const Program::DeviceBuild &build) { return build.uniformWorkGroups; });
  size_t kernelMax = code.info().maxWorkGroupSize;
  if (local == nullptr) {
    range.local = defaultLocalSize(kernel, device, code, workDim, range.global);
  } else {
    for (cl_uint dim = 0; dim < workDim; ++dim)
      range.local[dim] = local[dim];
  }

  size_t items = 1;
  for (cl_uint dim = 0; dim < 3; ++dim) {
    size_t size = range.local[dim];
    if (size == 0)
      return CL_INVALID_WORK_GROUP_SIZE;
    if (dim < workDim && size > info.maxWorkItemSizes[dim])
      return CL_INVALID_WORK_ITEM_SIZE;
    if (hasRequired && size != required[dim])
      return CL_INVALID_WORK_GROUP_SIZE;
    if (dim < workDim && uniform && range.global[dim] % size != 0)
      return CL_INVALID_WORK_GROUP_SIZE;
    items *= size;
  }
  if (items > kernelMax || items > info.maxWorkGroupSize)
    return CL_INVALID_WORK_GROUP_SIZE;
  return CL_SUCCESS;
}

cl_int enqueueKernel(cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
                     const size_t *global_work_offset, const size_t *global_work_size,
                     const size_t *local_work_size, cl_uint num_events_in_wait_list,
                     const cl_event *event_wait_list, cl_event *event, cl_command_type type) {
  EnqueueTarget target;
  if (cl_int error =
          validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
    return error;
  return launchKernel(target, kernel, work_dim, global_work_offset, global_work_size,
                      local_work_size, event, type);
}

} // namespace

cl_int kiln::api::buildLaunch(const Queue &queue, cl_kernel kernel, cl_uint work_dim,
                              const size_t *global_work_offset, const size_t *global_work_size,
                              const size_t *local_work_size, KernelLaunch &launch) {
  Kernel *self;
  const DeviceKernel *code;
  if (cl_int error = validateKernelFor(queue, kernel, self, code))
    return error;
  Device &device = queue.device();
  if (cl_int error = validateRange(*self, device, *code, work_dim, global_work_offset,
                                   global_work_size, local_work_size, launch.range))
    return error;
  launch.kernel = Ref<Kernel>(self);
  launch.deviceKernel = code;
  if (cl_int error = self->launchArgs(launch.arguments))
    return error;
  if (launch.arguments.localMemorySize + code->info().workGroupScratchSize >
      device.info().localMemSize)
    return CL_OUT_OF_RESOURCES;
  return CL_SUCCESS;
}

cl_int kiln::api::checkLaunchShape(const Queue &queue, cl_kernel kernel, cl_uint work_dim,
                                   const size_t *global_work_offset, const size_t *global_work_size,
                                   const size_t *local_work_size) {
  Kernel *self;
  const DeviceKernel *code;
  if (cl_int error = validateKernelFor(queue, kernel, self, code, true))
    return error;
  NDRange range;
  return validateRange(*self, queue.device(), *code, work_dim, global_work_offset, global_work_size,
                       local_work_size, range);
}

cl_int kiln::api::launchKernel(const EnqueueTarget &target, cl_kernel kernel, cl_uint work_dim,
                               const size_t *global_work_offset, const size_t *global_work_size,
                               const size_t *local_work_size, cl_event *event,
                               cl_command_type type) {
  KernelLaunch launch;
  if (cl_int error = buildLaunch(*target.queue, kernel, work_dim, global_work_offset,
                                 global_work_size, local_work_size, launch))
    return error;
  return submitCommand(target, type, std::move(launch), event);
}

KILN_API cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size, const size_t *local_work_size,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    return enqueueKernel(command_queue, kernel, work_dim, global_work_offset, global_work_size,
                         local_work_size, num_events_in_wait_list, event_wait_list, event,
                         CL_COMMAND_NDRANGE_KERNEL);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event) {
  // A task is an NDRange of one work-item.
  const size_t one = 1;
  return guard([&] {
    return enqueueKernel(command_queue, kernel, 1, nullptr, &one, &one, num_events_in_wait_list,
                         event_wait_list, event, CL_COMMAND_TASK);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueNativeKernel(
    cl_command_queue command_queue, void(CL_CALLBACK *user_func)(void *), void *args,
    size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list, const void **args_mem_loc,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    if (user_func == nullptr || (args == nullptr && cb_args > 0) ||
        (args != nullptr && cb_args == 0) ||
        (num_mem_objects > 0 && (mem_list == nullptr || args_mem_loc == nullptr)) ||
        (num_mem_objects == 0 && (mem_list != nullptr || args_mem_loc != nullptr)))
      return CL_INVALID_VALUE;
    if (!(target.queue->device().info().executionCapabilities & CL_EXEC_NATIVE_KERNEL))
      return CL_INVALID_OPERATION;
    NativeKernel native;
    native.function = user_func;
    const auto *bytes = static_cast<const std::byte *>(args);
    native.args.assign(bytes, bytes + cb_args);
    for (cl_uint index = 0; index < num_mem_objects; ++index) {
      MemObject *memory = toObject<MemObject>(mem_list[index]);
      if (memory == nullptr)
        return CL_INVALID_MEM_OBJECT;
      // args_mem_loc points into the application's `args`; the copy has the same layout.
      size_t offset = static_cast<const std::byte *>(args_mem_loc[index]) - bytes;
      if (offset + sizeof(void *) > cb_args)
        return CL_INVALID_VALUE;
      native.memLocations.emplace_back(offset, Ref<MemObject>(memory));
    }
    return submitCommand(target, CL_COMMAND_NATIVE_KERNEL, std::move(native), event);
  });
}

KILN_API cl_int CL_API_CALL clGetKernelSuggestedLocalWorkSizeKHR(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    size_t *suggested_local_work_size) {
  Queue *queue;
  Kernel *self;
  const DeviceKernel *code;
  if (cl_int error = validateKernelOnQueue(command_queue, kernel, queue, self, code))
    return error;
  Device &device = queue->device();
  if (work_dim < 1 || work_dim > device.info().maxWorkItemDimensions)
    return CL_INVALID_WORK_DIMENSION;
  if (global_work_size == nullptr)
    return CL_INVALID_GLOBAL_WORK_SIZE;
  std::array<size_t, 3> global{1, 1, 1};
  for (cl_uint dim = 0; dim < work_dim; ++dim) {
    if (global_work_size[dim] == 0)
      return CL_INVALID_GLOBAL_WORK_SIZE;
    size_t offset = global_work_offset != nullptr ? global_work_offset[dim] : 0;
    if (offset > std::numeric_limits<size_t>::max() - global_work_size[dim])
      return CL_INVALID_GLOBAL_OFFSET;
    global[dim] = global_work_size[dim];
  }
  if (suggested_local_work_size == nullptr)
    return CL_INVALID_VALUE;
  return guard([&] {
    std::array<size_t, 3> local = defaultLocalSize(*self, device, *code, work_dim, global);
    std::copy_n(local.begin(), work_dim, suggested_local_work_size);
    return CL_SUCCESS;
  });
}
