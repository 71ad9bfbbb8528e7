// Turns a linked program module into native work-group functions for the host CPU. The
// interface is free of LLVM types; the implementation (codegen/) lives in libkiln-compiler.so.
#pragma once

#include "compiler/frontend.hpp"
#include "devices/cpu/work_group_abi.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace kiln::cpu {

struct JitKernel {
  WorkGroupFunction function = nullptr;
  /// Bytes of per-work-item storage the function needs in WorkGroupParams::privateMemory.
  uint64_t privateBytesPerItem = 0;
  /// Bytes of stack the function itself uses per work-group (CL_KERNEL_PRIVATE_MEM_SIZE).
  uint64_t stackBytes = 0;
  /// Work-items the function runs together: the loop vectorizer runs consecutive work-items of
  /// a work-item loop in the lanes of one vector (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE).
  uint32_t vectorWidth = 1;
};

/// Native code for the kernels of one program; it stays loaded as long as this object lives.
class JitProgram {
public:
  virtual ~JitProgram() = default;
  /// Null when the program has no kernel of that name.
  virtual const JitKernel *kernel(std::string_view name) const = 0;
};

class KernelJit {
public:
  virtual ~KernelJit() = default;
  /// Compiles every kernel of `module` (a linked executable). On failure returns null and sets
  /// `error`.
  virtual std::unique_ptr<JitProgram> compile(const compiler::Bitcode &module,
                                              const compiler::ProgramInfo &info, bool optimize,
                                              std::string &error) = 0;
  /// The host CPU as LLVM names it (e.g. "znver4"), for device queries and cache keys.
  virtual std::string hostCpuName() = 0;
};

} // namespace kiln::cpu
