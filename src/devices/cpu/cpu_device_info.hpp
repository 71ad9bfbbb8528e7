// What the CPU device reports to clGetDeviceInfo and what its compiler accepts, derived from
// the host processor and from what Kiln's CPU code generator supports.
#pragma once

#include "compiler/frontend.hpp"
#include "devices/cpu/host_cpu.hpp"
#include "runtime/objects/device_info.hpp"

#include <vector>

namespace kiln::cpu {

/// The device made of one compute unit (one worker thread) per entry of `unitCpus`, the
/// logical CPU that unit runs on.
DeviceInfo describeCpuDevice(const HostCpu &host, const std::vector<int> &unitCpus);

/// Worker threads: KILN_CPU_THREADS when set, else one per core.
unsigned workerCount(const HostCpu &host);

} // namespace kiln::cpu
