// Context entry points.
#include "api/api_support.hpp"
#include "api/device_selection.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/platform.hpp"

#include <algorithm>

using namespace kiln;
using namespace kiln::api;

namespace {

/// Checks a context property list and copies it (with its terminating zero) into `copy`.
cl_int parseContextProperties(const cl_context_properties *properties,
                              std::vector<cl_context_properties> &copy) {
  if (properties == nullptr)
    return CL_SUCCESS;
  std::vector<cl_context_properties> seen;
  for (const cl_context_properties *entry = properties; *entry != 0; entry += 2) {
    cl_context_properties name = entry[0], value = entry[1];
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      return CL_INVALID_PROPERTY;
    seen.push_back(name);
    switch (name) {
    case CL_CONTEXT_PLATFORM:
      if (!Platform::isObject(reinterpret_cast<cl_platform_id>(value)))
        return CL_INVALID_PLATFORM;
      break;
    case CL_CONTEXT_INTEROP_USER_SYNC:
      if (value != CL_TRUE && value != CL_FALSE)
        return CL_INVALID_PROPERTY;
      break;
    default:
      return CL_INVALID_PROPERTY;
    }
    copy.push_back(name);
    copy.push_back(value);
  }
  copy.push_back(0);
  return CL_SUCCESS;
}

cl_context makeContext(std::vector<Device *> devices, const cl_context_properties *properties,
                       Context::ErrorCallback notify, void *userData, cl_int &error) {
  std::vector<cl_context_properties> copy;
  error = parseContextProperties(properties, copy);
  if (error != CL_SUCCESS)
    return nullptr;
  for (Device *device : devices)
    if (!device->info().available) {
      error = CL_DEVICE_NOT_AVAILABLE;
      return nullptr;
    }
  return createObject<Context>(std::move(devices), std::move(copy), notify, userData);
}

} // namespace

KILN_API cl_context CL_API_CALL clCreateContext(const cl_context_properties *properties,
                                                cl_uint num_devices, const cl_device_id *devices,
                                                Context::ErrorCallback pfn_notify, void *user_data,
                                                cl_int *errcode_ret) {
  return guardCreate<cl_context>(errcode_ret, [&](cl_int &error) -> cl_context {
    if (devices == nullptr || num_devices == 0 || (pfn_notify == nullptr && user_data != nullptr)) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    std::vector<Device *> list;
    for (cl_uint index = 0; index < num_devices; ++index) {
      Device *device = toObject<Device>(devices[index]);
      if (device == nullptr) {
        error = CL_INVALID_DEVICE;
        return nullptr;
      }
      // The specification: duplicate devices are ignored.
      if (std::find(list.begin(), list.end(), device) == list.end())
        list.push_back(device);
    }
    return makeContext(std::move(list), properties, pfn_notify, user_data, error);
  });
}

KILN_API cl_context CL_API_CALL clCreateContextFromType(const cl_context_properties *properties,
                                                        cl_device_type device_type,
                                                        Context::ErrorCallback pfn_notify,
                                                        void *user_data, cl_int *errcode_ret) {
  return guardCreate<cl_context>(errcode_ret, [&](cl_int &error) -> cl_context {
    if (pfn_notify == nullptr && user_data != nullptr) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    if (!isValidDeviceType(device_type)) {
      error = CL_INVALID_DEVICE_TYPE;
      return nullptr;
    }
    std::vector<Device *> list = devicesOfType(Platform::get(), device_type);
    if (list.empty()) {
      // Property errors come first: check them before reporting no devices.
      std::vector<cl_context_properties> ignored;
      error = parseContextProperties(properties, ignored);
      if (error == CL_SUCCESS)
        error = CL_DEVICE_NOT_FOUND;
      return nullptr;
    }
    return makeContext(std::move(list), properties, pfn_notify, user_data, error);
  });
}

KILN_API cl_int CL_API_CALL clRetainContext(cl_context context) {
  return retainObject<Context>(context, CL_INVALID_CONTEXT);
}

KILN_API cl_int CL_API_CALL clReleaseContext(cl_context context) {
  return releaseObject<Context>(context, CL_INVALID_CONTEXT);
}

KILN_API cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret) {
  Context *self = toObject<Context>(context);
  if (self == nullptr)
    return CL_INVALID_CONTEXT;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_CONTEXT_REFERENCE_COUNT:
      return out(self->externalCount());
    case CL_CONTEXT_NUM_DEVICES:
      return out(static_cast<cl_uint>(self->devices().size()));
    case CL_CONTEXT_DEVICES: {
      std::vector<cl_device_id> handles(self->devices().begin(), self->devices().end());
      return out(handles);
    }
    case CL_CONTEXT_PROPERTIES:
      return out(self->properties());
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clSetContextDestructorCallback(cl_context context,
                                                           Context::DestructorCallback pfn_notify,
                                                           void *user_data) {
  Context *self = toObject<Context>(context);
  if (self == nullptr)
    return CL_INVALID_CONTEXT;
  if (pfn_notify == nullptr)
    return CL_INVALID_VALUE;
  return guard([&] {
    self->addDestructorCallback(pfn_notify, user_data);
    return CL_SUCCESS;
  });
}
