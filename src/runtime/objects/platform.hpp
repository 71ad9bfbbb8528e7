// The Kiln platform: the one process-wide object, created on the first API call. Creating it
// only describes the devices; compilers and worker threads start on first real use.
#pragma once

#include "runtime/objects/compiler_loader.hpp"
#include "runtime/objects/object.hpp"
#include "runtime/program_cache/program_cache.hpp"
#include "runtime/scheduling/block_recycler.hpp"

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
  CompilerServices *compiler(std::string &error) { return compilerLoader_.services(error); }

  /// What identifies the code of this Kiln in on-disk cache keys (CompilerLoader).
  const std::string &buildIdentity() { return compilerLoader_.buildIdentity(); }

  ProgramCache &programCache() { return programCache_; }

  ~Platform();

private:
  friend class BlockRecycler;
  Platform();

  CompilerLoader compilerLoader_; // before the devices, whose drivers hold handles to it
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device *> devicePointers_;
  std::string name_ = "Kiln";
  std::string vendor_ = "Kiln";
  std::string version_;
  std::string extensions_;

  ProgramCache programCache_;
  BlockRecycler commandMemory_;
};

/// Kiln's version, as in CL_DRIVER_VERSION.
const char *kilnVersion();

/// The version of the LLVM that libkiln-compiler.so was built with (known without loading it).
const char *llvmVersion();

} // namespace kiln
