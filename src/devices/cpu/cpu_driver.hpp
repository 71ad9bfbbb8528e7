// The CPU device: kernels JIT-compiled for the host, work-groups spread over a thread pool.
#pragma once

#include "runtime/device_driver.hpp"

#include <memory>
#include <vector>

namespace kiln {
class CompilerLoader;
}

namespace kiln::cpu {

/// The host CPU as one device, its kernels compiled by the "cpu" code generator of `compiler`.
std::vector<std::unique_ptr<DeviceDriver>> createCpuDrivers(CompilerLoader &compiler);

} // namespace kiln::cpu
