#include "runtime/objects/platform.hpp"

#include "runtime/objects/device.hpp"
#include "runtime/objects/extension_table.hpp"
#include "support/spirv_translator.hpp"

namespace kiln {

// Both from CMake: the project's version and LLVM_PACKAGE_VERSION.
const char *kilnVersion() {
  return KILN_VERSION;
}

const char *llvmVersion() {
  return KILN_LLVM_VERSION;
}

Platform &Platform::get() {
  // Immortal on purpose: applications may exit with commands still running on worker threads,
  // and those must never see a destroyed platform.
  static Platform *platform = std::unique_ptr<Platform>(new Platform()).release();
  return *platform;
}

BlockRecycler &BlockRecycler::commands() {
  return Platform::get().commandMemory_;
}

Platform::Platform() {
  version_ = std::string("OpenCL 3.0 Kiln ") + kilnVersion();
  bool readsIl = spirvTranslatorPath().has_value();
  for (const OfferedName &offered : kOfferedNames)
    if (offered.platform && (!offered.needsIl || readsIl))
      extensions_ += (extensions_.empty() ? "" : " ") + std::string(offered.name);
  for (std::unique_ptr<DeviceDriver> &driver : createDeviceDrivers(compilerLoader_))
    devices_.push_back(std::make_unique<Device>(*this, std::move(driver)));
  for (const auto &device : devices_)
    devicePointers_.push_back(device.get());
}

Platform::~Platform() = default;

} // namespace kiln
