// The kinds of device this build of Kiln has. The runtime asks here for its devices and knows
// them only as DeviceDriver: adding a kind of device touches no runtime code.
#include "devices/cpu/cpu_driver.hpp"
#include "runtime/device_driver.hpp"
#ifdef KILN_CUDA_DEVICE
#include "devices/cuda/cuda_driver.hpp"
#endif

namespace kiln {

std::vector<std::unique_ptr<DeviceDriver>> createDeviceDrivers() {
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  drivers.push_back(cpu::createCpuDriver());
#ifdef KILN_CUDA_DEVICE
  for (std::unique_ptr<DeviceDriver> &gpu : cuda::createCudaDrivers())
    drivers.push_back(std::move(gpu));
#endif
  return drivers;
}

} // namespace kiln
