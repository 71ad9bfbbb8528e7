// cl_program: source, IL or binaries, and the result of building them for each device.
#pragma once

#include "compiler/build_options.hpp"
#include "compiler/frontend.hpp"
#include "runtime/objects/object.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
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

  /// How the program was created; it decides which build calls are allowed.
  enum class Origin { Source, Intermediate, Binary, Link };

  /// From OpenCL C source.
  Program(Context &context, std::string source);
  /// From a SPIR-V module (clCreateProgramWithIL), already checked by the API layer.
  Program(Context &context, std::vector<uint8_t> il);

  /// From binaries (one per device, already checked by the API layer), or the empty result of
  /// clLinkProgram that link() then fills.
  Program(Context &context, Origin origin, const std::vector<Device *> &devices,
          std::vector<DeviceBuild> builds);
  ~Program();

  Context &context() const { return *context_; }
  const std::vector<Device *> &devices() const { return devices_; }
  const std::string &source() const { return source_; }
  /// The SPIR-V module of a program created from IL (CL_PROGRAM_IL); empty otherwise.
  const std::vector<uint8_t> &intermediate() const { return intermediate_; }
  Origin origin() const { return origin_; }
  /// Whether it was created from source or IL: what clBuildProgram and clCompileProgram compile.
  bool isCompiledByKiln() const {
    return origin_ == Origin::Source || origin_ == Origin::Intermediate;
  }

  /// clSetProgramSpecializationConstant: the value later builds give constant `specId`.
  void setSpecializationConstant(uint32_t specId, std::vector<uint8_t> value);

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

  /// clBuildProgram of the source or IL for one device, through the on-disk cache when it can
  /// be: a hit needs neither the front end nor the linker (nor, when the device can load its
  /// code from the cache, the compiler library at all).
  void buildFromSource(Device &device, const compiler::BuildOptions &parsed, DeviceBuild &result);
  /// The front end's compile of the source (with `headers`) or of the IL (with the
  /// specialization constants set so far).
  compiler::CompileResult compileInput(compiler::Frontend &frontend, Device &device,
                                       const compiler::BuildOptions &parsed,
                                       std::span<const compiler::SourceHeader> headers) const;
  /// What the on-disk cache keys on besides the options: the source, or the IL and its
  /// specialization constants.
  std::string cacheInput() const;

  const DeviceBuild &buildFor(const Device *device) const;
  DeviceBuild &buildFor(const Device *device);

  Ref<Context> context_;
  std::vector<Device *> devices_;
  std::string source_;
  std::vector<uint8_t> intermediate_;
  compiler::SpecializationValues specializationValues_; // guarded by mutex_
  Origin origin_;
  std::atomic<int> kernelCount_{0};

  mutable std::mutex mutex_;
  /// By root device: sub-devices run their root's code, so a build for any device of a
  /// partition tree is the build of all of them (as the conformance tests expect).
  std::map<const Device *, DeviceBuild> builds_;
};

} // namespace kiln
