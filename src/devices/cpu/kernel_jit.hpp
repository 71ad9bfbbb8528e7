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
  /// The same for work-groups whose size along dimension 0 is a multiple of simdWidth (no lane
  /// ever masked off); null when the kernel is not vectorized.
  WorkGroupFunction fullGroupsFunction = nullptr;
  /// Bytes of storage the function needs in WorkGroupParams::privateMemory per SIMD group
  /// (simdWidth work-items of dimension 0, the rest of a row included).
  uint64_t privateBytesPerSimdGroup = 0;
  /// Bytes of stack the function itself uses per work-group (CL_KERNEL_PRIVATE_MEM_SIZE).
  uint64_t stackBytes = 0;
  /// Work-items of dimension 0 the function runs together in the lanes of vectors: the work-item
  /// vectorizer's SIMD group (1 when the kernel was not vectorized).
  uint32_t simdWidth = 1;
  /// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: simdWidth, or for a kernel left scalar the
  /// lanes LLVM's loop vectorizer would use on its work-item loops.
  uint32_t preferredMultiple = 1;
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
