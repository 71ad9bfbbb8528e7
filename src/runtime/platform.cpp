#include "runtime/platform.hpp"

#include "compiler/compiler_library.hpp"
#include "runtime/build_id.hpp"
#include "runtime/device.hpp"
#include "runtime/extension_table.hpp"
#include "support/settings.hpp"

#include <cstdlib>
#include <dlfcn.h>

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
  for (const OfferedName &offered : kOfferedNames)
    if (offered.platform)
      extensions_ += (extensions_.empty() ? "" : " ") + std::string(offered.name);
  for (std::unique_ptr<DeviceDriver> &driver : createDeviceDrivers())
    devices_.push_back(std::make_unique<Device>(*this, std::move(driver)));
  for (const auto &device : devices_)
    devicePointers_.push_back(device.get());
}

Platform::~Platform() = default;

namespace {

/// The folder libkiln.so was loaded from, with a trailing slash.
std::string libraryFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&kilnVersion), &info) == 0 || info.dli_fname == nullptr)
    return {};
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string compilerLibraryPath() {
  std::optional<std::string_view> chosen = settingValue(Setting::CompilerLibrary);
  return chosen ? std::string(*chosen) : libraryFolder() + "libkiln-compiler.so";
}

} // namespace

const std::string &Platform::buildIdentity() {
  std::call_once(buildIdentityRead_, [this] {
    std::string kiln = loadedBuildId(reinterpret_cast<void *>(&kilnVersion));
    std::string compiler = readBuildId(compilerLibraryPath());
    if (!kiln.empty() && !compiler.empty())
      buildIdentity_ = kiln + " " + compiler;
  });
  return buildIdentity_;
}

void Platform::loadCompiler() {
  buildIdentity(); // before the library is loaded: see buildIdentity()
  std::string path = compilerLibraryPath();
  // RTLD_LOCAL keeps LLVM's symbols out of the global scope, away from any other LLVM the
  // application has loaded. Never closed: LLVM does not support being unloaded and reloaded.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *reason = dlerror();
    compilerError_ = reason != nullptr ? reason : "dlopen failed";
    return;
  }
  auto entry = reinterpret_cast<CompilerServicesEntry>(dlsym(handle, kCompilerServicesSymbol));
  if (entry == nullptr) {
    compilerError_ = path + " has no " + kCompilerServicesSymbol;
    return;
  }
  compiler_ = entry();
}

CompilerServices *Platform::compiler(std::string &error) {
  std::call_once(compilerLoaded_, [this] { loadCompiler(); });
  if (compiler_ == nullptr)
    error = compilerError_;
  return compiler_;
}

} // namespace kiln
