#include "runtime/objects/device_partition.hpp"

#include "runtime/objects/device.hpp"

#include <algorithm>
#include <numeric>

namespace kiln {
namespace {

/// The levels CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE tries, in the specification's order.
constexpr cl_device_affinity_domain kAffinityLevels[] = {
    CL_DEVICE_AFFINITY_DOMAIN_NUMA, CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE};

bool supportsScheme(const DeviceInfo &info, cl_device_partition_property scheme) {
  return scheme != 0 && std::find(info.partitionProperties.begin(), info.partitionProperties.end(),
                                  scheme) != info.partitionProperties.end();
}

/// `count` consecutive compute units starting at `first`.
std::vector<unsigned> unitRange(unsigned first, unsigned count) {
  std::vector<unsigned> units(count);
  std::iota(units.begin(), units.end(), first);
  return units;
}

/// One sub-device with every compute unit is the device again, not a partition of it.
cl_int failIfWhole(const DevicePartition &partition, unsigned unitCount) {
  if (partition.subDevices.size() == 1 && partition.subDevices[0].size() == unitCount)
    return CL_DEVICE_PARTITION_FAILED;
  return CL_SUCCESS;
}

cl_int partitionEqually(const DeviceInfo &info, const cl_device_partition_property *properties,
                        DevicePartition &partition) {
  if (properties[2] != 0)
    return CL_INVALID_VALUE; // one scheme, one value
  cl_device_partition_property perSubDevice = properties[1];
  if (perSubDevice <= 0)
    return CL_INVALID_VALUE;
  if (perSubDevice > cl_device_partition_property(info.maxComputeUnits))
    return CL_INVALID_DEVICE_PARTITION_COUNT;
  unsigned size = static_cast<unsigned>(perSubDevice);
  // "If n does not divide evenly ..., then the remaining compute units are not used."
  for (unsigned first = 0; first + size <= info.maxComputeUnits; first += size)
    partition.subDevices.push_back(unitRange(first, size));
  partition.type = {CL_DEVICE_PARTITION_EQUALLY, perSubDevice, 0};
  return failIfWhole(partition, info.maxComputeUnits);
}

cl_int partitionByCounts(const DeviceInfo &info, const cl_device_partition_property *properties,
                         DevicePartition &partition) {
  partition.type = {CL_DEVICE_PARTITION_BY_COUNTS};
  const cl_device_partition_property *count = properties + 1;
  uint64_t total = 0;
  for (; *count != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END; ++count) {
    if (*count < 0 || *count > cl_device_partition_property(info.maxComputeUnits))
      return CL_INVALID_DEVICE_PARTITION_COUNT;
    partition.subDevices.push_back(
        unitRange(static_cast<unsigned>(total), static_cast<unsigned>(*count)));
    partition.type.push_back(*count);
    total += static_cast<uint64_t>(*count);
  }
  if (count[1] != 0)
    return CL_INVALID_VALUE; // the property list goes on after the counts
  if (partition.subDevices.empty())
    return CL_INVALID_VALUE;
  if (partition.subDevices.size() > info.partitionMaxSubDevices ||
      partition.subDevices.size() > info.maxComputeUnits || total > info.maxComputeUnits)
    return CL_INVALID_DEVICE_PARTITION_COUNT;
  partition.type.insert(partition.type.end(), {CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0});
  return failIfWhole(partition, info.maxComputeUnits);
}

cl_int partitionByAffinity(const Device &device, const cl_device_partition_property *properties,
                           DevicePartition &partition) {
  const DeviceInfo &info = device.info();
  if (properties[2] != 0)
    return CL_INVALID_VALUE;
  auto domain = static_cast<cl_device_affinity_domain>(properties[1]);
  bool oneLevel = std::find(std::begin(kAffinityLevels), std::end(kAffinityLevels), domain) !=
                  std::end(kAffinityLevels);
  if (!oneLevel && domain != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE)
    return CL_INVALID_VALUE;
  if ((info.partitionAffinityDomain & domain) == 0)
    return CL_INVALID_VALUE;
  for (cl_device_affinity_domain level : kAffinityLevels) {
    if ((oneLevel && level != domain) || (info.partitionAffinityDomain & level) == 0)
      continue;
    std::vector<std::vector<unsigned>> groups = device.driver().affinityGroups(level);
    if (groups.size() < 2)
      continue; // every unit shares this level: nothing to split along
    partition.subDevices = std::move(groups);
    partition.type = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                      static_cast<cl_device_partition_property>(level), 0};
    return CL_SUCCESS;
  }
  return CL_DEVICE_PARTITION_FAILED;
}

} // namespace

cl_int planPartition(const Device &device, const cl_device_partition_property *properties,
                     DevicePartition &partition) {
  const DeviceInfo &info = device.info();
  cl_device_partition_property scheme = properties[0];
  if (!supportsScheme(info, scheme) || properties[1] == 0)
    return CL_INVALID_VALUE;
  switch (scheme) {
  case CL_DEVICE_PARTITION_EQUALLY:
    return partitionEqually(info, properties, partition);
  case CL_DEVICE_PARTITION_BY_COUNTS:
    return partitionByCounts(info, properties, partition);
  case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN:
    return partitionByAffinity(device, properties, partition);
  default:
    return CL_INVALID_VALUE; // a scheme the device lists but the runtime does not know
  }
}

} // namespace kiln
