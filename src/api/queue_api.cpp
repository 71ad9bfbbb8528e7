// Command-queue entry points.
#include "api/api_support.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/queue.hpp"

using namespace kiln;
using namespace kiln::api;

namespace {

constexpr cl_command_queue_properties kKnownQueueProperties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
    CL_QUEUE_ON_DEVICE_DEFAULT;

/// The context and device a queue is created for, or the error naming the bad one.
cl_int validateQueueTarget(cl_context context, cl_device_id device, Context *&owner,
                           Device *&target) {
  owner = toObject<Context>(context);
  if (owner == nullptr)
    return CL_INVALID_CONTEXT;
  target = toObject<Device>(device);
  if (target == nullptr || !owner->hasDevice(target))
    return CL_INVALID_DEVICE;
  return CL_SUCCESS;
}

cl_command_queue makeQueue(cl_context context, cl_device_id device,
                           cl_command_queue_properties properties,
                           std::vector<cl_queue_properties> propertyList, cl_int &error) {
  Context *owner;
  Device *target;
  error = validateQueueTarget(context, device, owner, target);
  if (error != CL_SUCCESS)
    return nullptr;
  if (properties & ~kKnownQueueProperties) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  bool onDevice = properties & CL_QUEUE_ON_DEVICE;
  cl_command_queue_properties supported =
      onDevice ? target->info().queueOnDeviceProperties : target->info().queueOnHostProperties;
  // Device queues are always out of order; the default one is a device queue.
  if ((properties & CL_QUEUE_ON_DEVICE_DEFAULT) && !onDevice) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  if (onDevice && !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  if ((onDevice && supported == 0) ||
      (properties & ~(CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) & ~supported)) {
    error = CL_INVALID_QUEUE_PROPERTIES;
    return nullptr;
  }
  if (onDevice) {
    DeviceQueues &queues = owner->deviceQueues();
    // There is one default device queue per device: asking for it again gives it again.
    if (properties & CL_QUEUE_ON_DEVICE_DEFAULT)
      if (Ref<Queue> existing = queues.defaultFor(*target)) {
        existing->retainExternal();
        return existing.get();
      }
  }
  return createObject<Queue>(*owner, *target, properties, std::move(propertyList));
}

} // namespace

KILN_API cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context, cl_device_id device,
                                                           cl_command_queue_properties properties,
                                                           cl_int *errcode_ret) {
  return guardCreate<cl_command_queue>(errcode_ret, [&](cl_int &error) {
    return makeQueue(context, device, properties, {}, error);
  });
}

KILN_API cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                   const cl_queue_properties *properties, cl_int *errcode_ret) {
  return guardCreate<cl_command_queue>(errcode_ret, [&](cl_int &error) -> cl_command_queue {
    Context *owner;
    Device *target;
    error = validateQueueTarget(context, device, owner, target);
    if (error != CL_SUCCESS)
      return nullptr;
    cl_command_queue_properties flags = 0;
    bool hasSize = false;
    cl_queue_properties size = 0;
    std::vector<cl_queue_properties> list;
    for (const cl_queue_properties *entry = properties; entry != nullptr && *entry != 0;
         entry += 2) {
      switch (entry[0]) {
      case CL_QUEUE_PROPERTIES:
        flags = entry[1];
        break;
      case CL_QUEUE_SIZE:
        hasSize = true;
        size = entry[1];
        break;
      default:
        error = CL_INVALID_VALUE;
        return nullptr;
      }
      list.push_back(entry[0]);
      list.push_back(entry[1]);
    }
    if (!list.empty())
      list.push_back(0);
    if (hasSize && (!(flags & CL_QUEUE_ON_DEVICE) || size > target->info().queueOnDeviceMaxSize)) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    return makeQueue(context, device, flags, std::move(list), error);
  });
}

KILN_API cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue command_queue) {
  return retainObject<Queue>(command_queue, CL_INVALID_COMMAND_QUEUE);
}

KILN_API cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue command_queue) {
  Queue *self = toObject<Queue>(command_queue);
  if (self == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  // Commands already enqueued keep the queue alive (through their events) until they finish.
  self->flush();
  self->releaseExternal();
  return CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue command_queue,
                                                  cl_command_queue_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret) {
  Queue *self = toObject<Queue>(command_queue);
  if (self == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_QUEUE_CONTEXT:
      return out(static_cast<cl_context>(&self->context()));
    case CL_QUEUE_DEVICE:
      return out(static_cast<cl_device_id>(&self->device()));
    case CL_QUEUE_REFERENCE_COUNT:
      return out(self->externalCount());
    case CL_QUEUE_PROPERTIES:
      return out(self->properties());
    case CL_QUEUE_PROPERTIES_ARRAY:
      return out(self->propertyList());
    case CL_QUEUE_SIZE:
      // Only device queues have a size.
      if (!self->isOnDevice())
        return CL_INVALID_COMMAND_QUEUE;
      return out(self->deviceQueueSize());
    case CL_QUEUE_DEVICE_DEFAULT: {
      Ref<Queue> defaultQueue = self->context().deviceQueues().defaultFor(self->device());
      return out(static_cast<cl_command_queue>(defaultQueue.get()));
    }
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue command_queue,
                                                      cl_command_queue_properties properties,
                                                      cl_bool enable,
                                                      cl_command_queue_properties *old_properties) {
  // Removed after OpenCL 1.0: queue properties are fixed at creation.
  if (toObject<Queue>(command_queue) == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  return CL_INVALID_OPERATION;
}

KILN_API cl_int CL_API_CALL clFlush(cl_command_queue command_queue) {
  Queue *self = toHostQueue(command_queue);
  if (self == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  self->flush();
  return CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clFinish(cl_command_queue command_queue) {
  Queue *self = toHostQueue(command_queue);
  if (self == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  return guard([&] {
    self->finish();
    return CL_SUCCESS;
  });
}
