// Device-side enqueue, for every device: the arena a launch's kernel appends its enqueues to
// (compiler/device_enqueue_format.hpp), and what happens once the launch has finished: each
// record becomes a command on its device queue, waiting for the device events it names, and
// the launch's own command completes only when all of them have (OpenCL C: a parent's event
// completes when its children's have). Devices call these around their launches; the children
// go through the runtime's scheduler like any command, never through the API layer.
#pragma once

#include "compiler/device_enqueue_format.hpp"
#include "compiler/program_info.hpp"
#include "runtime/objects/device_info.hpp"
#include "runtime/objects/object.hpp"
#include "runtime/objects/storage_pool.hpp"

#include <array>
#include <map>
#include <memory>
#include <mutex>

namespace kiln {

class Command;
class Device;
class Event;
class Kernel;
class Program;
struct KernelLaunch;

struct DeviceKernelInfo;

/// What a kernel may ask of the block kernel `kernel` describes (get_kernel_work_group_size and
/// the others) on a device whose CL_DEVICE_MAX_WORK_ITEM_SIZES are `maxWorkItemSizes`.
compiler::BlockKernelLimits blockKernelLimits(const DeviceKernelInfo &kernel,
                                              const std::array<size_t, 3> &maxWorkItemSizes);

/// What a launch from the host and everything it enqueues, at any depth, share: its device
/// events (a child may wait for, or capture, an event its parent made), the block kernels'
/// limits the kernels read, the program's kernels, and the kernel objects its children run.
class EnqueueTree {
public:
  /// For a launch of `program` on `device`; null when out of memory.
  static std::shared_ptr<EnqueueTree> create(Program &program, Device &device);

  EnqueueTree(Program &program, Device &device, compiler::ProgramInfo info);
  ~EnqueueTree();

  Program &program() const { return program_; }
  Device &device() const { return device_; }
  compiler::DeviceEventTable *events() const {
    return reinterpret_cast<compiler::DeviceEventTable *>(storage_.get());
  }
  const compiler::BlockKernelLimits *kernelLimits() const { return kernelLimits_; }
  size_t kernelCount() const { return info_.kernels.size(); }

  /// The entry of device event `number`, or null when there is none.
  compiler::DeviceEvent *entry(uint32_t number) const;
  /// The command that device event `number` stands for.
  void setCommandEvent(uint32_t number, Ref<Event> event);
  Ref<Event> commandEvent(uint32_t number) const;

  /// The kernel object of kernel `number` (one-based), which the tree keeps; null when the
  /// program has no such kernel.
  Kernel *blockKernel(uint32_t number);

private:
  bool allocate();

  Program &program_;
  Device &device_;
  compiler::ProgramInfo info_;
  PooledStorage storage_; // the event table and its entries, then the kernels' limits
  const compiler::BlockKernelLimits *kernelLimits_ = nullptr;

  mutable std::mutex mutex_;
  std::map<uint32_t, Ref<Event>> commandEvents_;
  std::map<uint32_t, Ref<Kernel>> kernels_; // made on first use, under mutex_
};

/// The arena of one launch, in memory the launch's device and the host both address.
class EnqueueArena {
public:
  /// For `launch` on `device`; null when out of memory.
  static std::unique_ptr<EnqueueArena> create(const KernelLaunch &launch, Device &device);
  /// For `launches` launches of `tree` on `device`, which run as one command and share it; null
  /// when out of memory.
  static std::unique_ptr<EnqueueArena> forTree(std::shared_ptr<EnqueueTree> tree, Device &device,
                                               size_t launches);

  EnqueueArena(PooledStorage storage, std::shared_ptr<EnqueueTree> tree)
      : storage_(std::move(storage)), tree_(std::move(tree)) {}

  compiler::DeviceEnqueueArena *arena() const {
    return reinterpret_cast<compiler::DeviceEnqueueArena *>(storage_.get());
  }
  const std::shared_ptr<EnqueueTree> &tree() const { return tree_; }

  /// The records its launch wrote, in a block of their size; null when that saves nothing. A
  /// launch's records (their block literals) stay until its children have finished, and a
  /// recursive program has thousands of such launches: their arenas, of the device queue's
  /// whole size, would each take a new block of the pool.
  std::unique_ptr<EnqueueArena> withRecordsOnly() const;

private:
  PooledStorage storage_;
  std::shared_ptr<EnqueueTree> tree_;
};

/// Fills the device-queue values of a device that runs device-side enqueue through this code:
/// capabilities, queue properties and sizes, queue and event counts.
void describeDeviceEnqueue(DeviceInfo &info);

/// The launch of `parent` has finished with `status`: starts the commands its records ask for
/// and completes `parent` once they have all finished (at once when there are none, or when
/// the launch failed).
void completeAfterEnqueuedCommands(std::shared_ptr<Command> parent,
                                   std::unique_ptr<EnqueueArena> arena, cl_int status);

} // namespace kiln
