// cl_program: source, IL or binaries, and the result of building them for each device.
#pragma once

#include "compiler/build_options.hpp"
#include "compiler/frontend.hpp"
#include "runtime/objects/object.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

class Context;
class Device;
class DeviceProgram;

class Program : public Object<_cl_program, ObjectKind::Program>, public RefCounted<Program> {
public:
  /// What a device's build produced.
  struct DeviceBuild {
    cl_build_status status = CL_BUILD_NONE;
    std::string options;
    std::string log;
    cl_program_binary_type binaryType = CL_PROGRAM_BINARY_TYPE_NONE;
    compiler::Bitcode module;
    compiler::ProgramInfo info; // kernels of an executable
    bool optimize = true;
    /// Whether every work-group must be full: OpenCL C 1.x programs and
    /// -cl-uniform-work-group-size.
    bool uniformWorkGroups = true;
    /// The device's code for an executable, made when the build succeeds. Shared with the
    /// kernels created from it, which keep it alive through a later rebuild.
    std::shared_ptr<const DeviceProgram> loaded;

    bool isExecutable() const {
      return status == CL_BUILD_SUCCESS && binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    }
    /// The build worked and produced `type`.
    void succeed(cl_program_binary_type type) {
      status = CL_BUILD_SUCCESS;
      binaryType = type;
    }
  };

  /// From OpenCL C source.
  Program(Context &context, std::string source);
  /// How the program was created; it decides which build calls are allowed.
  enum class Origin { Source, Binary, Link };

  /// From binaries (one per device, already checked by the API layer), or the empty result of
  /// clLinkProgram that link() then fills.
  Program(Context &context, Origin origin, const std::vector<Device *> &devices,
          std::vector<DeviceBuild> builds);
  ~Program();

  Context &context() const { return *context_; }
  const std::vector<Device *> &devices() const { return devices_; }
  const std::string &source() const { return source_; }
  Origin origin() const { return origin_; }
  bool isFromSource() const { return origin_ == Origin::Source; }

  /// Whether the application holds any kernel objects of this program (builds are then
  /// refused). Kernels it has released do not count, even while commands still use them.
  bool hasKernels() const { return kernelCount_.load() > 0; }
  void kernelCreated() { kernelCount_.fetch_add(1); }
  void kernelReleased() { kernelCount_.fetch_sub(1); }

  /// clBuildProgram on `devices`. Returns CL_SUCCESS, CL_BUILD_PROGRAM_FAILURE or
  /// CL_COMPILER_NOT_AVAILABLE; per-device results go to the build status and log.
  cl_int build(const std::vector<Device *> &devices, const std::string &options,
               const compiler::BuildOptions &parsed);
  /// clCompileProgram.
  cl_int compile(const std::vector<Device *> &devices, const std::string &options,
                 const compiler::BuildOptions &parsed,
                 const std::vector<compiler::SourceHeader> &headers);
  /// clLinkProgram: this (new, empty) program becomes the link of `inputs`.
  cl_int link(const std::vector<Device *> &devices, const std::string &options,
              const compiler::BuildOptions &parsed, const std::vector<Program *> &inputs);

  /// A snapshot of one device's build (status, log, ...). Thread-safe.
  template <typename F> auto withBuild(const Device *device, F &&f) const {
    std::lock_guard lock(mutex_);
    return f(buildFor(device));
  }

  /// The kernels of the executable built for some device: the program's kernel list.
  /// False when no device has an executable.
  bool executableInfo(compiler::ProgramInfo &info) const;

  /// The device code of `device`'s executable; null when it has none.
  std::shared_ptr<const DeviceProgram> deviceProgram(const Device &device) const;

  /// Whether some device has a successfully built executable.
  bool hasExecutable() const;

private:
  /// One build step on each device: marks the device's build in progress, gives `step` the
  /// device, the previous build and a fresh failed result to fill, and stores the result.
  /// Returns whether every device succeeded.
  template <typename Step>
  bool forEachDevice(const std::vector<Device *> &devices, const std::string &options,
                     const compiler::BuildOptions &parsed, Step &&step);

  /// clBuildProgram of the source for one device, through the on-disk cache when it can be:
  /// a hit needs neither the front end nor the linker (nor, when the device can load its code
  /// from the cache, the compiler library at all).
  void buildFromSource(Device &device, const compiler::BuildOptions &parsed, DeviceBuild &result);

  const DeviceBuild &buildFor(const Device *device) const;
  DeviceBuild &buildFor(const Device *device);

  Ref<Context> context_;
  std::vector<Device *> devices_;
  std::string source_;
  Origin origin_;
  std::atomic<int> kernelCount_{0};

  mutable std::mutex mutex_;
  /// By root device: sub-devices run their root's code, so a build for any device of a
  /// partition tree is the build of all of them (as the conformance tests expect).
  std::map<const Device *, DeviceBuild> builds_;
};

} // namespace kiln
