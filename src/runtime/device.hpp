// A device as the application sees it (cl_device_id). What it can do is in its DeviceInfo; how
// it does it is its DeviceDriver's business.
#pragma once

#include "runtime/device_driver.hpp"
#include "runtime/device_info.hpp"
#include "runtime/object.hpp"

#include <memory>

namespace kiln {

class Platform;

/// Root devices live as long as the platform: clRetainDevice/clReleaseDevice do nothing to them.
class Device : public Object<_cl_device_id, ObjectKind::Device> {
public:
  Device(Platform &platform, std::unique_ptr<DeviceDriver> driver)
      : platform_(platform), driver_(std::move(driver)) {}

  Platform &platform() const { return platform_; }
  DeviceDriver &driver() const { return *driver_; }
  const DeviceInfo &info() const { return driver_->info(); }

  /// Kept for the API's validation helpers, which treat every object uniformly.
  bool isExternallyAlive() const { return true; }

private:
  Platform &platform_;
  std::unique_ptr<DeviceDriver> driver_;
};

} // namespace kiln
