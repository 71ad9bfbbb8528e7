// Choosing devices by type: shared by clGetDeviceIDs and clCreateContextFromType.
#pragma once

#include "support/icd_handles.hpp"

#include <vector>

namespace kiln {
class Device;
class Platform;
} // namespace kiln

namespace kiln::api {

/// Whether `type` is a valid cl_device_type argument.
bool isValidDeviceType(cl_device_type type);

/// The platform's devices matching `type` (CL_DEVICE_TYPE_DEFAULT selects the default device).
std::vector<Device *> devicesOfType(const Platform &platform, cl_device_type type);

} // namespace kiln::api
