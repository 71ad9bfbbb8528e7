// clCreateSubDevices' logic: which compute units each sub-device gets, for the three partition
// schemes of OpenCL 1.2 and later. The device says which units share what memory
// (DeviceDriver::affinityGroups); the arithmetic and the error rules are the same for every
// device.
#pragma once

#include "support/icd_handles.hpp"

#include <vector>

namespace kiln {

class Device;

struct DevicePartition {
  /// Each sub-device's compute units, indices into the partitioned device's.
  std::vector<std::vector<unsigned>> subDevices;
  /// What each sub-device reports as CL_DEVICE_PARTITION_TYPE: the application's properties,
  /// with CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE replaced by the level it chose, ending
  /// in 0.
  std::vector<cl_device_partition_property> type;
};

/// Plans the partition of `device` that `properties` (0-terminated) asks for. Returns
/// CL_SUCCESS, CL_INVALID_VALUE (malformed or unsupported properties),
/// CL_INVALID_DEVICE_PARTITION_COUNT (counts out of range) or CL_DEVICE_PARTITION_FAILED (a
/// supported scheme that cannot split this device into more than one part).
cl_int planPartition(const Device &device, const cl_device_partition_property *properties,
                     DevicePartition &partition);

} // namespace kiln
