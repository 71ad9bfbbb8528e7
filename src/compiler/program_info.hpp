// What a compiled program tells the runtime about its kernels. Plain data, no LLVM types: it
// crosses from the compiler library (libkiln-compiler.so) into the runtime (libkiln.so).
// The on-disk program cache stores it (compiler/program_info_serialization.cpp): a new field
// must be written and read there too, with that file's format version bumped.
#pragma once

#include "support/icd_handles.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::compiler {

/// How a kernel argument is passed.
enum class ArgKind : uint8_t {
  Value,           // scalar, vector or struct passed by value
  GlobalPointer,   // __global T*: a buffer
  ConstantPointer, // __constant T*: a buffer
  LocalPointer,    // __local T*: only a size is given, memory is per work-group
  Image,
  Sampler,
  Pipe,
  Queue,
};

struct KernelArgInfo {
  // As clGetKernelArgInfo reports them.
  std::string name;
  std::string typeName;
  cl_kernel_arg_address_qualifier addressQualifier = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier accessQualifier = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier typeQualifier = CL_KERNEL_ARG_TYPE_NONE;

  ArgKind kind = ArgKind::Value;
  /// The size clSetKernelArg must be given: for Value arguments sizeof the OpenCL C type (a
  /// 3-component vector counts as 4, a struct includes its padding); for buffers, images,
  /// samplers, pipes and queues the size of their handle (8); 0 for LocalPointer, whose size is
  /// the number of bytes to allocate.
  uint32_t valueSize = 0;
  /// Where the argument lives in the kernel's argument block, and its bytes there (layout:
  /// compiler/argument_block.hpp).
  uint32_t blockOffset = 0;
  uint32_t blockSize = 0;
  /// For GlobalPointer arguments: the kernel stores through it and never reads through it (its
  /// output), as far as the compiler can tell; false when unsure.
  bool onlyWritten = false;
};

struct KernelInfo {
  std::string name;
  std::vector<KernelArgInfo> args;
  /// CL_KERNEL_ATTRIBUTES: the attributes as written in the source, space separated.
  std::string attributes;
  std::array<size_t, 3> requiredWorkGroupSize{0, 0, 0}; // all zero when not given
  std::array<size_t, 3> workGroupSizeHint{0, 0, 0};
  std::string vecTypeHint;           // empty when not given
  uint32_t requiredSubGroupSize = 0; // intel_reqd_sub_group_size, 0 when not given
  /// Bytes of the __local variables the kernel uses, itself or through the functions (kernels
  /// included) it calls: each variable at the next multiple of its alignment, in module order.
  uint64_t staticLocalMemSize = 0;
  uint32_t argBlockSize = 0; // bytes of the argument block (compiler/argument_block.hpp)
  uint32_t argBlockAlignment = 8;
  /// Whether the kernel may call printf (it then needs a printf buffer when it runs).
  bool usesPrintf = false;
  /// Whether the kernel calls a work-group collective function, whose local memory the device
  /// adds to the kernel's (compiler/work_group_scratch.hpp).
  bool usesWorkGroupScratch = false;
  /// Whether the kernel enqueues kernels or uses device events (it then needs an arena when it
  /// runs: compiler/device_enqueue_format.hpp).
  bool usesDeviceEnqueue = false;
  /// A block Clang made a kernel for enqueue_kernel: launched by device-side enqueue only, so
  /// the program does not list it.
  bool isEnqueuedBlock = false;
};

/// One argument of a printf call as its record holds it (see compiler/printf_format.hpp).
struct PrintfArgument {
  enum class Kind : uint8_t {
    Integer, // two's complement, elementBytes 1, 2, 4 or 8
    Float,   // IEEE 754, elementBytes 2 (half), 4 or 8
    Pointer, // an address of elementBytes
    String,  // the argument of a %s conversion: its characters
  };
  Kind kind = Kind::Integer;
  uint8_t elementBytes = 4;
  uint8_t elementCount = 1; // 1 for a scalar, N for a vector of N elements
};

/// A printf call in the program: its format (a string literal, as the specification requires)
/// and the arguments its records hold.
struct PrintfCallSite {
  std::string format;
  std::vector<PrintfArgument> args;
};

struct ProgramInfo {
  std::vector<KernelInfo> kernels;
  /// CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: the sizes of all program-scope (and static)
  /// variables in the __global address space, added up.
  size_t globalVariableTotalSize = 0;
  /// Whether kernel argument names and type names were requested (-cl-kernel-arg-info, given to
  /// clBuildProgram or to the clCompileProgram of any of the linked objects). The fields above
  /// are always filled: the runtime needs them internally.
  bool argInfoAvailable = false;
  /// The printf calls of the program, by the call site number their records carry.
  std::vector<PrintfCallSite> printfCalls;
};

/// The kernels the application sees: all but the block kernels of device-side enqueue.
inline std::vector<const KernelInfo *> applicationKernels(const ProgramInfo &info) {
  std::vector<const KernelInfo *> kernels;
  for (const KernelInfo &kernel : info.kernels)
    if (!kernel.isEnqueuedBlock)
      kernels.push_back(&kernel);
  return kernels;
}

} // namespace kiln::compiler
