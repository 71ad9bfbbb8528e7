// What a compiled program tells the runtime about its kernels. Plain data, no LLVM types: it
// crosses from the compiler library (libkiln-compiler.so) into the runtime (libkiln.so).
#pragma once

#include "runtime/icd_handles.hpp"

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
  /// For Value arguments, the size clSetKernelArg must be given (sizeof the OpenCL C type).
  uint32_t valueSize = 0;
  /// Where the argument lives in the kernel's argument block (see devices/cpu/work_group_abi.hpp):
  /// values are stored as is, pointers as device addresses, __local pointers as byte offsets
  /// into the work-group's local memory.
  uint32_t blockOffset = 0;
  uint32_t blockSize = 0;
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
  uint64_t staticLocalMemSize = 0;   // bytes of __local variables declared in the kernel
  uint32_t argBlockSize = 0;         // bytes of the argument block
  uint32_t argBlockAlignment = 8;
};

struct ProgramInfo {
  std::vector<KernelInfo> kernels;
  size_t globalVariableTotalSize = 0; // CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE
  /// Whether kernel argument names and type names were requested (-cl-kernel-arg-info).
  bool argInfoAvailable = false;
};

} // namespace kiln::compiler
