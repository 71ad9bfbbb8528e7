// A device as the application sees it (cl_device_id). What it can do is in its DeviceInfo; how
// it does it is its DeviceDriver's business.
#pragma once

#include "runtime/device_driver.hpp"
#include "runtime/objects/device_info.hpp"
#include "runtime/objects/object.hpp"

#include <memory>
#include <vector>

namespace kiln {

class Platform;

/// A root device lives as long as the platform: clRetainDevice/clReleaseDevice leave it alone.
/// A sub-device (clCreateSubDevices) is counted like any other object; contexts hold internal
/// references to their devices, and a sub-device holds one to its parent.
class Device : public Object<_cl_device_id, ObjectKind::Device>, public RefCounted<Device> {
public:
  /// A root device.
  Device(Platform &platform, std::unique_ptr<DeviceDriver> driver);
  /// A sub-device of `parent`, made by `partitionType` (CL_DEVICE_PARTITION_TYPE, 0-terminated).
  Device(Device &parent, std::unique_ptr<DeviceDriver> driver,
         std::vector<cl_device_partition_property> partitionType);
  ~Device();

  Platform &platform() const { return platform_; }
  DeviceDriver &driver() const { return *driver_; }
  const DeviceInfo &info() const { return driver_->info(); }

  /// Null for a root device.
  Device *parent() const { return parent_.get(); }
  bool isRoot() const { return parent_ == nullptr; }
  /// The root device this one was partitioned from (itself for a root device).
  const Device &root() const { return isRoot() ? *this : parent_->root(); }
  /// Empty for a root device.
  const std::vector<cl_device_partition_property> &partitionType() const { return partitionType_; }

private:
  Platform &platform_;
  std::unique_ptr<DeviceDriver> driver_;
  Ref<Device> parent_;
  std::vector<cl_device_partition_property> partitionType_;
};

} // namespace kiln
