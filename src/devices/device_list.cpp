// The kinds of device this build of Kiln has, one row each, in the order the platform lists
// them: libkiln.so's composition root. The runtime asks here for its devices and knows them only
// as DeviceDriver; a new kind of device is a folder under devices/ and a row here. A device's
// folder defines KILN_DEVICE_<KIND> for the targets that link it (its CMakeLists.txt), so a
// build without it (no cuda.h, or a device only the tests link) has no row for it.
#include "runtime/device_driver.hpp"
#include "runtime/objects/compiler_loader.hpp"
#include "support/settings.hpp"

#include "devices/cpu/cpu_driver.hpp"
#ifdef KILN_DEVICE_CUDA
#include "devices/cuda/cuda_driver.hpp"
#endif
#ifdef KILN_DEVICE_STREAM
#include "devices/stream/stream_driver.hpp"
#endif

namespace kiln {
namespace {

using CreateDrivers = std::vector<std::unique_ptr<DeviceDriver>> (*)(CompilerLoader &);

constexpr CreateDrivers kDeviceKinds[] = {
    cpu::createCpuDrivers,
#ifdef KILN_DEVICE_CUDA
    cuda::createCudaDrivers,
#endif
#ifdef KILN_DEVICE_STREAM
    stream::createStreamDrivers,
#endif
};

/// Whether KILN_DEVICE_TYPES (a list of `cpu` and `gpu`), where it is set, names `type`.
bool listed(cl_device_type type) {
  std::optional<std::string_view> kinds = settingValue(Setting::DeviceTypes);
  if (!kinds)
    return true;
  std::string_view name = type == CL_DEVICE_TYPE_GPU ? "gpu" : "cpu";
  while (!kinds->empty()) {
    size_t comma = kinds->find(',');
    if (kinds->substr(0, comma) == name)
      return true;
    kinds->remove_prefix(comma == std::string_view::npos ? kinds->size() : comma + 1);
  }
  return false;
}

} // namespace

std::vector<std::unique_ptr<DeviceDriver>> createDeviceDrivers(CompilerLoader &compiler) {
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  for (CreateDrivers create : kDeviceKinds)
    for (std::unique_ptr<DeviceDriver> &driver : create(compiler))
      if (listed(driver->info().type))
        drivers.push_back(std::move(driver));
  return drivers;
}

} // namespace kiln
