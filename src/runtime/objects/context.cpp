#include "runtime/objects/context.hpp"

#include "runtime/objects/device.hpp"

#include <algorithm>

namespace kiln {

Context::Context(std::vector<Device *> devices, std::vector<cl_context_properties> properties,
                 ErrorCallback errorCallback, void *userData)
    : devices_(std::move(devices)), properties_(std::move(properties)),
      errorCallback_(errorCallback), errorUserData_(userData) {
  // A sub-device the application releases stays alive while a context uses it.
  for (Device *device : devices_)
    device->retainInternal();
}

Context::~Context() {
  // The specification: destructor callbacks run in the reverse order they were registered.
  for (auto it = destructorCallbacks_.rbegin(); it != destructorCallbacks_.rend(); ++it)
    it->first(this, it->second);
  for (Device *device : devices_)
    device->releaseInternal();
}

bool Context::hasDevice(const Device *device) const {
  return std::find(devices_.begin(), devices_.end(), device) != devices_.end();
}

bool Context::hasDeviceMemory() const {
  return std::any_of(devices_.begin(), devices_.end(),
                     [](const Device *device) { return device->driver().hasOwnMemory(); });
}

cl_ulong Context::maxAllocationSize() const {
  cl_ulong limit = ~cl_ulong{0};
  for (const Device *device : devices_)
    limit = std::min(limit, device->info().maxMemAllocSize);
  return limit;
}

cl_device_svm_capabilities Context::svmCapabilities() const {
  cl_device_svm_capabilities capabilities = 0;
  for (const Device *device : devices_)
    capabilities |= device->info().svmCapabilities;
  return capabilities;
}

AlignedStorage Context::allocateStorage(size_t size, MemoryPlacement placement) const {
  for (Device *device : devices_)
    if (device->driver().hasOwnMemory())
      return device->driver().allocateSharedMemory(size, placement);
  return allocateHostStorage(size, MemObject::kBaseAlignment);
}

void Context::reportError(const std::string &message) const {
  if (errorCallback_ != nullptr)
    errorCallback_(message.c_str(), nullptr, 0, errorUserData_);
}

void Context::addDestructorCallback(DestructorCallback callback, void *userData) {
  std::lock_guard lock(mutex_);
  destructorCallbacks_.emplace_back(callback, userData);
}

} // namespace kiln
