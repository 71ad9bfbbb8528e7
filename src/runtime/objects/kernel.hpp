// cl_kernel: one kernel function of a built program and its argument values.
#pragma once

#include "compiler/program_info.hpp"
#include "runtime/objects/object.hpp"
#include "runtime/objects/svm_allocations.hpp"
#include "runtime/objects/weak_ref.hpp"
#include "runtime/scheduling/block_recycler.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <vector>

namespace kiln {

class Device;
class DeviceKernel;
class DeviceProgram;
class MemObject;
class Program;

/// A memory object a launch's arguments name (a buffer or an image), and the argument that
/// names it.
struct LaunchMemObject {
  Ref<MemObject> memory;
  uint32_t argument = 0; // its index in compiler::KernelInfo::args
};

/// A launch's copy of the arguments, and the memory objects it holds: allocated per launch, so
/// they come from the recycled blocks.
using LaunchArgumentBlock = std::vector<std::byte, RecyclingAllocator<std::byte>>;
using LaunchMemObjects = std::vector<LaunchMemObject, RecyclingAllocator<LaunchMemObject>>;
using LaunchSvmAllocations = std::vector<Ref<MemObject>, RecyclingAllocator<Ref<MemObject>>>;

/// What a launch takes from its kernel's arguments when it is enqueued: what every device
/// needs to run it. (What a device derives from these for its own purposes, it derives itself.)
struct LaunchArguments {
  /// The argument block: buffers replaced by their addresses, images by their descriptors' and
  /// __local arguments by their offsets into the work-group's local memory.
  LaunchArgumentBlock block;
  /// The buffers and images the arguments name, in argument order, each with its argument (a
  /// NULL buffer names none): a device that gives images descriptors of its own finds their
  /// slots in the block through these.
  LaunchMemObjects memObjects;
  /// The SVM allocations the kernel may reach: those its SVM pointer arguments point into, and
  /// those of the pointers named by CL_KERNEL_EXEC_INFO_SVM_PTRS (a device with memory of its
  /// own moves them to itself before the launch).
  LaunchSvmAllocations svmAllocations;
  size_t localMemorySize = 0; // per work-group: the kernel's own plus the arguments'
};

/// A kernel's code on one device, and the device program it lives in (kept alive with it).
struct DeviceKernelCode {
  std::shared_ptr<const DeviceProgram> program;
  const DeviceKernel *kernel = nullptr;
};

/// The code of kernel `name` on every device `program` has an executable for; false when one
/// of those executables lacks it.
bool findDeviceKernels(const Program &program, const std::string &name,
                       std::map<const Device *, DeviceKernelCode> &found);

class Kernel : public Object<_cl_kernel, ObjectKind::Kernel>, public RefCounted<Kernel> {
public:
  /// `deviceKernels` has the loaded kernel for every device the program was built for.
  Kernel(Program &program, compiler::KernelInfo info,
         std::map<const Device *, DeviceKernelCode> deviceKernels);
  /// clCloneKernel: same function, same argument values.
  explicit Kernel(const Kernel &other);
  ~Kernel();

  /// The application released the kernel: it no longer counts as attached to its program, even
  /// while finished or pending commands still hold it.
  void lastExternalReleased();

  Program &program() const { return *program_; }
  const compiler::KernelInfo &info() const { return info_; }
  const std::string &name() const { return info_.name; }
  cl_uint argCount() const { return static_cast<cl_uint>(info_.args.size()); }

  /// Null when the program has no executable for `device`.
  const DeviceKernel *deviceKernel(const Device *device) const;

  /// clSetKernelArg, after validation: the bytes of a value argument, a buffer (null for a
  /// NULL buffer), or the size of a __local argument.
  void setValue(cl_uint index, const void *value, size_t size);
  void setMemObject(cl_uint index, MemObject *memory);
  void setLocalSize(cl_uint index, size_t size);
  /// The argument block of a launch of this block kernel (device-side enqueue) with the block
  /// literal at `literal` and the __local arguments after it of `localSizes` bytes, written to
  /// `block` (argBlockSize() bytes), without setting the kernel's own arguments: several threads
  /// may make launches of one block kernel at once. Returns the work-group's local memory size.
  size_t writeBlockArguments(const void *literal, std::span<const uint64_t> localSizes,
                             std::byte *block) const;
  size_t argBlockSize() const { return info_.argBlockSize; }
  /// clSetKernelArgSVMPointer: the pointer itself is the argument's value.
  void setSvmPointer(cl_uint index, const void *pointer);
  /// CL_KERNEL_EXEC_INFO_SVM_PTRS: SVM memory the kernel reaches other than through its
  /// arguments (pointers stored in SVM memory).
  void setIndirectSvmPointers(std::vector<const void *> pointers) {
    indirectSvmPointers_ = std::move(pointers);
  }
  /// CL_KERNEL_EXEC_INFO_INDIRECT_{HOST,DEVICE,SHARED}_ACCESS_INTEL: the kernel may reach any
  /// USM allocation of `kind` through pointers stored in memory.
  void setIndirectUsmAccess(SharedMemoryKind kind, bool reaches) {
    unsigned bit = 1u << static_cast<unsigned>(kind);
    indirectUsmKinds_ = reaches ? indirectUsmKinds_ | bit : indirectUsmKinds_ & ~bit;
  }

  bool allArgsSet() const;
  bool isArgSet(cl_uint index) const { return args_[index].isSet; }
  size_t localSize(cl_uint index) const { return args_[index].localSize; }
  /// The argument block (compiler/argument_block.hpp) with values in place; buffers, images and
  /// __local offsets are filled at launch.
  const std::vector<std::byte> &argBlock() const { return argBlock_; }

  /// Bytes of __local memory one work-group needs: the kernel's own plus the arguments'.
  size_t localMemorySize() const { return layOutLocalMemory(nullptr); }

  /// A launch's arguments as they stand (the launch holds the memory objects from now on). A
  /// buffer the kernel may write is one that is neither behind a `const` pointer nor
  /// CL_MEM_READ_ONLY. CL_INVALID_KERNEL_ARGS when a buffer argument has been released since it
  /// was set.
  cl_int launchArgs(LaunchArguments &arguments) const;

private:
  /// Places __local arguments after the kernel's own __local variables
  /// (compiler/argument_block.hpp); writes their offsets into `block` when given. Returns the
  /// total size.
  size_t layOutLocalMemory(std::byte *block) const;

  struct ArgState {
    bool isSet = false;
    /// Weak: as in every OpenCL implementation, setting a buffer argument does not keep the
    /// buffer alive (applications release buffers while kernels still name them). Empty for a
    /// NULL buffer.
    WeakRef<MemObject> memory;
    size_t localSize = 0;
    bool isSvmPointer = false; // the value in the block is the pointer itself
  };
  /// The SVM allocations that hold `pointer`, added to `allocations`.
  void addSvmAllocation(const void *pointer, LaunchSvmAllocations &allocations) const;

  Ref<Program> program_;
  compiler::KernelInfo info_;
  std::map<const Device *, DeviceKernelCode> deviceKernels_;
  std::vector<ArgState> args_;
  std::vector<std::byte> argBlock_;
  std::vector<const void *> indirectSvmPointers_;
  unsigned indirectUsmKinds_ = 0; // bit k: SharedMemoryKind k
};

} // namespace kiln
