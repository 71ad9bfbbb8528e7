// Platform entry points.
#include "api/api_support.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/platform.hpp"

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::api;

KILN_API cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                             cl_uint *num_platforms) {
  if ((num_entries == 0 && platforms != nullptr) ||
      (platforms == nullptr && num_platforms == nullptr))
    return CL_INVALID_VALUE;
  return guard([&] {
    Platform &platform = Platform::get();
    if (platforms != nullptr)
      platforms[0] = &platform;
    if (num_platforms != nullptr)
      *num_platforms = 1;
    return CL_SUCCESS;
  });
}

/// The platform an entry point was given: NULL selects Kiln's (implementation-defined).
static Platform *platformOrDefault(cl_platform_id platform) {
  if (platform == nullptr)
    return &Platform::get();
  return Platform::isObject(platform) ? static_cast<Platform *>(platform) : nullptr;
}

KILN_API cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                                              size_t param_value_size, void *param_value,
                                              size_t *param_value_size_ret) {
  Platform *self = platformOrDefault(platform);
  if (self == nullptr)
    return CL_INVALID_PLATFORM;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_PLATFORM_PROFILE:
      return out("FULL_PROFILE");
    case CL_PLATFORM_VERSION:
      return out(self->version());
    case CL_PLATFORM_NUMERIC_VERSION:
      return out(makeVersion(3, 0));
    case CL_PLATFORM_NAME:
      return out(self->name());
    case CL_PLATFORM_VENDOR:
      return out(self->vendor());
    case CL_PLATFORM_EXTENSIONS:
      return out(self->extensions());
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
      // Every platform extension Kiln has is at version 1.0.0.
      std::vector<cl_name_version> list;
      std::istringstream names(self->extensions());
      for (std::string name; names >> name;) {
        cl_name_version entry{};
        entry.version = makeVersion(1, 0);
        std::strncpy(entry.name, name.c_str(), CL_NAME_VERSION_MAX_NAME_SIZE - 1);
        list.push_back(entry);
      }
      return out(list);
    }
    case CL_PLATFORM_HOST_TIMER_RESOLUTION:
      return out(cl_ulong{1});
    case CL_PLATFORM_ICD_SUFFIX_KHR:
      return out("Kiln");
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clUnloadCompiler(void) {
  return CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform) {
  // A hint: LLVM cannot be unloaded and loaded again in one process, so the compiler stays.
  return Platform::isObject(platform) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

KILN_API cl_int CL_API_CALL clGetHostTimer(cl_device_id device, cl_ulong *host_timestamp) {
  if (toObject<Device>(device) == nullptr)
    return CL_INVALID_DEVICE;
  if (host_timestamp == nullptr)
    return CL_INVALID_VALUE;
  *host_timestamp = monotonicNanoseconds();
  return CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id device, cl_ulong *device_timestamp,
                                                    cl_ulong *host_timestamp) {
  if (toObject<Device>(device) == nullptr)
    return CL_INVALID_DEVICE;
  if (device_timestamp == nullptr || host_timestamp == nullptr)
    return CL_INVALID_VALUE;
  // Every Kiln device timestamps its profiling events with the host's monotonic clock.
  *host_timestamp = *device_timestamp = monotonicNanoseconds();
  return CL_SUCCESS;
}
