// Which logical CPUs share which memory, as Linux describes it under /sys/devices/system: the
// NUMA node of each CPU and the CPUs that share each of its caches. The CPU device partitions
// itself by affinity domain with it (clCreateSubDevices).
#pragma once

#include "support/icd_handles.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kiln::cpu {

/// The logical CPUs this process may run on (its affinity mask), in increasing order.
std::vector<int> allowedCpus();

/// What identifies the CPUs that share `level` (CL_DEVICE_AFFINITY_DOMAIN_NUMA or one of the
/// _L1.._L4_CACHE levels) with `cpu`: equal for two CPUs exactly when they share it. None when
/// the operating system does not describe that level for `cpu`.
std::optional<std::string> sharingIdentity(int cpu, cl_device_affinity_domain level);

/// The levels at which the operating system says `cpus` do not all share the same memory:
/// those that split a device made of them (CL_DEVICE_AFFINITY_DOMAIN_* bits).
cl_device_affinity_domain splittingLevels(const std::vector<int> &cpus);

/// The CPUs a sysfs CPU list names ("0-3,8,10-11").
std::vector<int> parseCpuList(const std::string &list);

/// Restricts the calling thread to `cpus`; false when the system refuses.
bool pinCurrentThread(const std::vector<int> &cpus);

} // namespace kiln::cpu
