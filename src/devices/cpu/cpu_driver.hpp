// The CPU device: kernels JIT-compiled for the host, work-groups spread over a thread pool.
#pragma once

#include "runtime/device_driver.hpp"

#include <memory>

namespace kiln::cpu {

std::unique_ptr<DeviceDriver> createCpuDriver();

} // namespace kiln::cpu
