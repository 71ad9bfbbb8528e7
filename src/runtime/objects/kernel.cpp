#include "runtime/objects/kernel.hpp"

#include "compiler/argument_block.hpp"
#include "runtime/device_driver.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/program.hpp"

#include <algorithm>
#include <cstring>

namespace kiln {
namespace {

/// Places the __local arguments of a kernel of `info` after its __local variables, argument
/// `index` taking `localSizeOf(index)` bytes, and writes their offsets into `block` (null: only
/// measures). Returns the work-group's local memory size.
template <typename LocalSizeOf>
size_t placeLocalArguments(const compiler::KernelInfo &info, std::byte *block,
                           LocalSizeOf localSizeOf) {
  compiler::LocalMemoryLayout layout(info.staticLocalMemSize);
  for (size_t index = 0; index < info.args.size(); ++index) {
    if (info.args[index].kind != compiler::ArgKind::LocalPointer)
      continue;
    uint64_t offset = layout.place(localSizeOf(index));
    if (block != nullptr)
      std::memcpy(block + info.args[index].blockOffset, &offset, sizeof offset);
  }
  return layout.size();
}

} // namespace

bool findDeviceKernels(const Program &program, const std::string &name,
                       std::map<const Device *, DeviceKernelCode> &found) {
  for (Device *device : program.devices()) {
    std::shared_ptr<const DeviceProgram> code = program.deviceProgram(*device);
    if (code == nullptr)
      continue;
    const DeviceKernel *kernel = code->kernel(name);
    if (kernel == nullptr)
      return false;
    found.emplace(device, DeviceKernelCode{std::move(code), kernel});
  }
  return true;
}

Kernel::Kernel(Program &program, compiler::KernelInfo info,
               std::map<const Device *, DeviceKernelCode> deviceKernels)
    : program_(&program), info_(std::move(info)), deviceKernels_(std::move(deviceKernels)),
      args_(info_.args.size()), argBlock_(info_.argBlockSize) {
  program.kernelCreated();
}

Kernel::Kernel(const Kernel &other)
    : Object(), RefCounted(), program_(other.program_), info_(other.info_),
      deviceKernels_(other.deviceKernels_), args_(other.args_), argBlock_(other.argBlock_),
      indirectSvmPointers_(other.indirectSvmPointers_), indirectUsmKinds_(other.indirectUsmKinds_) {
  program_->kernelCreated();
}

Kernel::~Kernel() = default;

void Kernel::lastExternalReleased() {
  program_->kernelReleased();
}

const DeviceKernel *Kernel::deviceKernel(const Device *device) const {
  auto found = deviceKernels_.find(device);
  return found == deviceKernels_.end() ? nullptr : found->second.kernel;
}

void Kernel::setValue(cl_uint index, const void *value, size_t size) {
  const compiler::KernelArgInfo &arg = info_.args[index];
  std::memcpy(argBlock_.data() + arg.blockOffset, value, size);
  args_[index] = ArgState{true, {}, 0};
}

void Kernel::setMemObject(cl_uint index, MemObject *memory) {
  args_[index] = ArgState{true, memory != nullptr ? memory->weakRef() : WeakRef<MemObject>(), 0};
}

void Kernel::setLocalSize(cl_uint index, size_t size) {
  args_[index] = ArgState{true, {}, size};
}

void Kernel::setSvmPointer(cl_uint index, const void *pointer) {
  std::memcpy(argBlock_.data() + info_.args[index].blockOffset, &pointer, sizeof pointer);
  args_[index] = ArgState{true, {}, 0, true};
}

void Kernel::addSvmAllocation(const void *pointer, LaunchSvmAllocations &allocations) const {
  SvmLocation location = program_->context().svmAllocations().find(pointer);
  if (location &&
      std::find(allocations.begin(), allocations.end(), location.allocation) == allocations.end())
    allocations.push_back(std::move(location.allocation));
}

bool Kernel::allArgsSet() const {
  for (const ArgState &arg : args_)
    if (!arg.isSet)
      return false;
  return true;
}

size_t Kernel::writeBlockArguments(const void *literal, std::span<const uint64_t> localSizes,
                                   std::byte *block) const {
  // Every argument of a block kernel is written here, nothing of the kernel object's own is
  // read: launches of one block kernel are made on several threads at once.
  std::memset(block, 0, info_.argBlockSize);
  if (!info_.args.empty())
    std::memcpy(block + info_.args[0].blockOffset, &literal, sizeof literal);
  // The __local arguments follow the literal, argument 0.
  return placeLocalArguments(info_, block, [&](size_t index) {
    return index - 1 < localSizes.size() ? localSizes[index - 1] : 0;
  });
}

size_t Kernel::layOutLocalMemory(std::byte *block) const {
  return placeLocalArguments(info_, block, [&](size_t index) { return args_[index].localSize; });
}

cl_int Kernel::launchArgs(LaunchArguments &arguments) const {
  LaunchArgumentBlock &block = arguments.block;
  LaunchMemObjects &memObjects = arguments.memObjects;
  block.assign(argBlock_.begin(), argBlock_.end());
  memObjects.reserve(args_.size());
  for (size_t index = 0; index < args_.size(); ++index) {
    compiler::ArgKind kind = info_.args[index].kind;
    bool isImage = kind == compiler::ArgKind::Image;
    if (kind != compiler::ArgKind::GlobalPointer && kind != compiler::ArgKind::ConstantPointer &&
        kind != compiler::ArgKind::Pipe && !isImage)
      continue;
    if (args_[index].isSvmPointer) {
      const void *pointer;
      std::memcpy(&pointer, block.data() + info_.args[index].blockOffset, sizeof pointer);
      addSvmAllocation(pointer, arguments.svmAllocations);
      continue;
    }
    const WeakRef<MemObject> &named = args_[index].memory;
    Ref<MemObject> memory = named.lock();
    if (!named.isEmpty() && (!memory || !memory->isExternallyAlive()))
      return CL_INVALID_KERNEL_ARGS;
    // A buffer or a pipe is its bytes; an image is its descriptor (image_kernel_descriptor.hpp).
    const void *address = !memory   ? nullptr
                          : isImage ? static_cast<const void *>(memory->kernelDescriptor())
                                    : memory->data();
    std::memcpy(block.data() + info_.args[index].blockOffset, &address, sizeof address);
    if (memory)
      memObjects.push_back({std::move(memory), static_cast<uint32_t>(index)});
  }
  for (const void *pointer : indirectSvmPointers_)
    addSvmAllocation(pointer, arguments.svmAllocations);
  for (auto kind :
       {SharedMemoryKind::UsmHost, SharedMemoryKind::UsmDevice, SharedMemoryKind::UsmShared})
    if (indirectUsmKinds_ & (1u << static_cast<unsigned>(kind)))
      program_->context().svmAllocations().collect(kind, arguments.svmAllocations);
  arguments.localMemorySize = layOutLocalMemory(block.data());
  return CL_SUCCESS;
}

} // namespace kiln
