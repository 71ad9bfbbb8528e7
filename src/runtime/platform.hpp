// The Kiln platform: the one process-wide object, created on the first API call. Creating it
// only describes the devices; compilers and worker threads start on first real use.
#pragma once

#include "runtime/block_recycler.hpp"
#include "runtime/object.hpp"
#include "runtime/program_cache.hpp"

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace kiln {

class CompilerServices;
class Device;

class Platform : public Object<_cl_platform_id, ObjectKind::Platform> {
public:
  /// The singleton. Thread-safe; the first call discovers the devices.
  static Platform &get();

  std::span<Device *const> devices() const { return devicePointers_; }
  Device *defaultDevice() const { return devicePointers_.empty() ? nullptr : devicePointers_[0]; }

  const std::string &name() const { return name_; }
  const std::string &vendor() const { return vendor_; }
  const std::string &version() const { return version_; }
  const std::string &extensions() const { return extensions_; }

  /// The compiler library, loaded on the first call. Null (with `error` set) when it cannot be
  /// loaded.
  CompilerServices *compiler(std::string &error);

  /// What identifies the code of this Kiln in on-disk cache keys: the GNU build IDs of
  /// libkiln.so as loaded and of libkiln-compiler.so (read before it is loaded, so it describes
  /// the library this process runs). Empty when either has none: the cache is then off.
  const std::string &buildIdentity();

  ProgramCache &programCache() { return programCache_; }

  ~Platform();

private:
  friend class BlockRecycler;
  Platform();
  void loadCompiler();

  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device *> devicePointers_;
  std::string name_ = "Kiln";
  std::string vendor_ = "Kiln";
  std::string version_;
  std::string extensions_;

  std::once_flag compilerLoaded_;
  CompilerServices *compiler_ = nullptr;
  std::string compilerError_;
  std::once_flag buildIdentityRead_;
  std::string buildIdentity_;
  ProgramCache programCache_;
  BlockRecycler commandMemory_;
};

/// Kiln's version, as in CL_DRIVER_VERSION.
const char *kilnVersion();

/// The version of the LLVM that libkiln-compiler.so was built with (known without loading it).
const char *llvmVersion();

} // namespace kiln
