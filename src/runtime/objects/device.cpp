#include "runtime/objects/device.hpp"

namespace kiln {

Device::Device(Platform &platform, std::unique_ptr<DeviceDriver> driver)
    : platform_(platform), driver_(std::move(driver)) {}

Device::Device(Device &parent, std::unique_ptr<DeviceDriver> driver,
               std::vector<cl_device_partition_property> partitionType)
    : platform_(parent.platform()), driver_(std::move(driver)), parent_(&parent),
      partitionType_(std::move(partitionType)) {}

Device::~Device() = default;

} // namespace kiln
