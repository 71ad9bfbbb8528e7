// The narrow interface every kind of device implements (CPU, CUDA). The runtime talks to devices
// only through it, and devices never call into the API layer.
#pragma once

#include "compiler/frontend.hpp"
#include "runtime/objects/device_info.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/scheduling/prepared_sequence.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

class Command;
class Event;
struct RecordedCommands;

/// What clGetKernelWorkGroupInfo reports for one kernel on one device.
struct DeviceKernelInfo {
  size_t maxWorkGroupSize = 1;
  size_t preferredWorkGroupSizeMultiple = 1;
  cl_ulong privateMemSize = 0;
  /// How many work-items the device likes a work-group of this kernel to have, when the
  /// application leaves the local size to the implementation (the work-group size Kiln aims
  /// for; it still divides the global size).
  size_t preferredWorkGroupItems = 1024;
  /// The work-items of the kernel's sub-groups (get_max_sub_group_size): sub-group k of a
  /// work-group is the work-items of linear local id k * subGroupSize onwards.
  size_t subGroupSize = 1;
  /// Local memory the device sets aside for the kernel beyond its own variables and arguments:
  /// the work-group collective functions' scratch (compiler/work_group_scratch.hpp).
  cl_ulong workGroupScratchSize = 0;
};

/// A kernel ready to run on one device. Drivers derive their own and recognise it in launches.
class DeviceKernel {
public:
  virtual ~DeviceKernel() = default;
  virtual DeviceKernelInfo info() const = 0;
  /// CL_KERNEL_SPILL_MEM_SIZE_INTEL: the memory the compiled kernel uses beyond its registers
  /// (0 only when it needs none). May compile the kernel, so it is asked only for that query.
  virtual cl_ulong spillMemorySize() const = 0;
};

/// A program executable loaded on one device.
class DeviceProgram {
public:
  virtual ~DeviceProgram() = default;
  /// Null when the program has no kernel of that name.
  virtual const DeviceKernel *kernel(std::string_view name) const = 0;

  /// The device's compiled form for the on-disk cache; empty when it cannot be cached.
  virtual std::vector<std::byte> serialize() const { return {}; }
};

class DeviceDriver {
public:
  virtual ~DeviceDriver() = default;

  virtual const DeviceInfo &info() const = 0;

  /// What the front end enables when compiling for this device.
  virtual const compiler::TargetDescription &compilerTarget() const = 0;

  /// Turns a linked executable into runnable device code (the CPU driver JIT-compiles it).
  /// Returns null and fills `error` on failure.
  virtual std::unique_ptr<DeviceProgram> loadProgram(const compiler::Bitcode &module,
                                                     const compiler::ProgramInfo &info,
                                                     bool optimize, std::string &error) = 0;

  /// Loads what DeviceProgram::serialize() returned, for the executable `module` and `info`,
  /// from the on-disk cache. Null when it cannot (the default): the caller then calls
  /// loadProgram, as when nothing was cached.
  virtual std::unique_ptr<DeviceProgram> loadSerializedProgram(std::span<const std::byte> bytes,
                                                               const compiler::Bitcode &module,
                                                               const compiler::ProgramInfo &info,
                                                               bool optimize) {
    return nullptr;
  }

  /// What decides this device's code besides the module and its build options, for the keys of
  /// the on-disk cache (e.g. the host CPU's name and features, and settings that change the
  /// generated code). Default: empty.
  virtual std::string codeIdentity() const { return {}; }

  /// The device's compute units grouped by the memory they share at `domain` (one level:
  /// CL_DEVICE_AFFINITY_DOMAIN_NUMA or _L4/_L3/_L2/_L1_CACHE), each group listing indices in
  /// 0..CL_DEVICE_MAX_COMPUTE_UNITS-1. Empty when the device does not know that level (it then
  /// leaves the level out of CL_DEVICE_PARTITION_AFFINITY_DOMAIN).
  virtual std::vector<std::vector<unsigned>>
  affinityGroups(cl_device_affinity_domain domain) const {
    return {};
  }

  /// A driver for a sub-device made of the compute units `units` (indices, as above) of this
  /// one, or null when the device cannot be partitioned. The sub-device runs the programs and
  /// kernels this driver loads: a program built for a parent device serves its sub-devices.
  virtual std::unique_ptr<DeviceDriver> createSubDevice(std::span<const unsigned> units) const {
    return nullptr;
  }

  /// Whether the device has memory of its own (a GPU). Contexts with such a device allocate
  /// their memory objects with allocateSharedMemory() instead of in plain host memory.
  virtual bool hasOwnMemory() const { return false; }

  /// `size` bytes that the host and this device both address, at the same address, aligned to
  /// CL_DEVICE_MEM_BASE_ADDR_ALIGN, placed as `placement` asks; null when out of memory. Only
  /// for devices with memory of their own.
  virtual AlignedStorage allocateSharedMemory(size_t size, MemoryPlacement placement) {
    return nullptr;
  }

  /// How long a host thread that waits for one of this device's commands keeps polling (yielding
  /// its core) after its first brief spin, before it sleeps. Zero: it sleeps at once. A GPU's
  /// commands often take a fraction of a millisecond, and waking a sleeping thread adds several
  /// microseconds to each of them.
  virtual std::chrono::microseconds hostWaitPollTime() const { return {}; }

  /// Called by a host thread that is about to wait for `waited`, the event of one of this
  /// device's commands: the device may run ready work of that command's queue on this thread
  /// until the event finishes (the CPU device runs small commands there rather than hand them to
  /// another core). It returns as soon as it has nothing it may run; the caller then waits as
  /// usual.
  virtual void runReadyWorkWhileWaiting(const Event &waited) {}

  /// Whether the device runs and completes the commands of each in-order queue in the order they
  /// were submitted (a GPU's stream). The next command of an in-order queue is then submitted as
  /// soon as the one before it has been, instead of once it has finished, so the device can
  /// queue them back to back.
  virtual bool keepsSubmissionOrder() const { return false; }

  /// Runs a command whose dependencies have all completed (when the driver keeps submission
  /// order, the in-order predecessor may only have been submitted). The driver calls
  /// Command::markRunning() when it starts and Command::complete() when it is done, from any
  /// thread.
  virtual void submit(std::shared_ptr<Command> command) = 0;

  /// Whether submit() takes ChildLaunches: the kernels that a launch's device-side enqueues
  /// started with nothing to wait for, as one command. Otherwise (the default) the runtime
  /// submits each as a command of its own.
  virtual bool runsChildLaunches() const { return false; }

  /// This driver's own form of a finalized command buffer's commands, for running them again
  /// and again with submitPrepared; null where the driver has none (the default): the runtime
  /// then submits them as one command after another.
  virtual std::unique_ptr<PreparedSequence> prepareSequence(const RecordedCommands &commands) {
    return nullptr;
  }

  /// Runs `commands` (in `prepared`, their form from prepareSequence) one after the other as
  /// `command`, which is running already, and completes it after the last with CL_COMPLETE, or
  /// with an error as soon as one fails (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when a
  /// recorded command failed, the driver's own error when the run could not be started).
  virtual void submitPrepared(const std::shared_ptr<Command> &command,
                              std::shared_ptr<const RecordedCommands> commands,
                              const PreparedSequence &prepared) {}
};

class CompilerLoader;

/// The drivers of every device on this machine that this build of Kiln supports, the CPU first,
/// each given its way to its code generator through `compiler`. Defined by libkiln.so's
/// composition root, the device list (devices/device_list.cpp): the runtime names no device.
std::vector<std::unique_ptr<DeviceDriver>> createDeviceDrivers(CompilerLoader &compiler);

} // namespace kiln
