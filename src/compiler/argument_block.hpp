// The kernel argument block: how a launch's argument values lie in memory. One layout, which
// the front end lays out (llvm/kernel_metadata.cpp fills KernelArgInfo::blockOffset and
// KernelInfo::argBlockSize), the runtime writes at every launch (runtime/objects/kernel.cpp), and
// each device's code generator reads (devices/cpu/codegen/work_group/work_group_function.cpp,
// devices/cuda/codegen/kernel_entry.cpp). No LLVM types, so that all of them can include it.
//
// The block holds the arguments in declaration order, each at the next offset that is a
// multiple of its alignment:
//  - Value: the bytes of the value as the device lays out its type (KernelArgInfo::blockSize ==
//    valueSize), aligned to the type's ABI alignment (a byval struct: at least its byval
//    alignment).
//  - GlobalPointer, ConstantPointer: the buffer's address, in a slot (kArgumentSlotSize bytes
//    at a multiple of kArgumentSlotAlignment).
//  - LocalPointer: in a slot, the argument's byte offset into the work-group's local memory
//    (LocalMemoryLayout below).
//  - Image: in a slot, the address of the image's descriptor
//  (runtime/images/image_kernel_descriptor.hpp);
//    the runtime writes the host's, and a device with descriptors of its own writes those over it.
//  - Sampler: in a slot, its CLK_* bits.
//  - Pipe: in a slot, the address of its storage (runtime/objects/pipe_storage.hpp).
//  - Queue: a slot no device fills yet.
// KernelInfo::argBlockSize is the end of the last argument rounded up to
// kArgumentBlockSizeMultiple, and argBlockAlignment the largest alignment of any argument, at
// least kArgumentSlotAlignment.
//
// A work-group's local memory holds the kernel's own __local variables first
// (KernelInfo::staticLocalMemSize bytes: each variable at its alignment, in module order), then
// the __local arguments, in argument order, each at the next multiple of
// kLocalArgumentAlignment. A LocalPointer slot holds the offset from the start of it all.
//
// The devices read the same layout; where they legitimately differ is in where the block and
// the local memory are, and so in what alignment their reads may assume:
//  - The CPU device is given the address of the runtime's copy of the block, which is aligned
//    to a cache line, less than an argument's alignment may be (a long16 by value: 128), so it
//    reads every slot and value assuming no alignment. Its local memory is one allocation of
//    the whole, aligned to kLocalArgumentAlignment, and a __local argument is at its base plus
//    the slot's offset.
//  - The GPU device passes the block by value, as a kernel parameter of argBlockAlignment (at
//    least kArgumentSlotAlignment), so it reads slots at that alignment. It keeps the kernel's
//    own __local variables apart, in static shared memory, and only the arguments' part of the
//    local memory, from localArgumentsBegin(), in the launch's dynamic shared memory
//    (localArgumentBytes() of it): a __local argument is at the dynamic memory's base plus the
//    slot's offset less localArgumentsBegin(). That base is aligned to 16 bytes, which is as
//    far as the offsets' alignment carries there (its widest access is 16 bytes).
#pragma once

#include <algorithm>
#include <cstdint>

namespace kiln::compiler {

/// Bytes of the slot of an address, a __local offset or a handle, and its alignment.
inline constexpr uint32_t kArgumentSlotSize = 8;
inline constexpr uint32_t kArgumentSlotAlignment = 8;
/// The block's size is a multiple of this.
inline constexpr uint32_t kArgumentBlockSizeMultiple = 8;
/// Alignment of each __local argument inside a work-group's local memory: enough for any
/// OpenCL C type (long16, double16).
inline constexpr uint64_t kLocalArgumentAlignment = 128;

/// `offset` rounded up to a multiple of `alignment` (a power of two).
constexpr uint64_t alignArgumentOffset(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

/// Places the arguments of a block one after the other, each at the next multiple of its
/// alignment.
class ArgumentBlockLayout {
public:
  /// The offset of the next argument, of `size` bytes aligned to `alignment`.
  constexpr uint32_t place(uint32_t size, uint32_t alignment) {
    uint64_t offset = alignArgumentOffset(end_, alignment);
    end_ = offset + size;
    alignment_ = std::max(alignment_, alignment);
    return static_cast<uint32_t>(offset);
  }
  /// KernelInfo::argBlockSize and argBlockAlignment of the arguments placed so far.
  constexpr uint32_t size() const {
    return static_cast<uint32_t>(alignArgumentOffset(end_, kArgumentBlockSizeMultiple));
  }
  constexpr uint32_t alignment() const { return alignment_; }

private:
  uint64_t end_ = 0;
  uint32_t alignment_ = kArgumentSlotAlignment;
};

/// Where the __local arguments begin in a work-group's local memory, after the kernel's own
/// variables (`staticLocalMemSize` bytes): the first argument's offset.
constexpr uint64_t localArgumentsBegin(uint64_t staticLocalMemSize) {
  return alignArgumentOffset(staticLocalMemSize, kLocalArgumentAlignment);
}

/// Places the __local arguments of one launch in a work-group's local memory.
class LocalMemoryLayout {
public:
  explicit constexpr LocalMemoryLayout(uint64_t staticLocalMemSize) : end_(staticLocalMemSize) {}
  /// The offset of the next __local argument, of `size` bytes.
  constexpr uint64_t place(uint64_t size) {
    uint64_t offset = alignArgumentOffset(end_, kLocalArgumentAlignment);
    end_ = offset + size;
    return offset;
  }
  /// The bytes of local memory a work-group needs: the kernel's own and the arguments placed.
  constexpr uint64_t size() const { return end_; }

private:
  uint64_t end_;
};

/// Bytes of the arguments' part of a work-group's local memory of `localMemorySize` bytes, from
/// localArgumentsBegin(): none when the kernel has no __local argument.
constexpr uint64_t localArgumentBytes(uint64_t localMemorySize, uint64_t staticLocalMemSize) {
  uint64_t begin = localArgumentsBegin(staticLocalMemSize);
  return localMemorySize > begin ? localMemorySize - begin : 0;
}

} // namespace kiln::compiler
