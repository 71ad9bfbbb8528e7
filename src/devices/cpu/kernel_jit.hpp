// Turns a linked program module into native work-group functions for the host CPU, in two
// steps: at build, each kernel is prepared (inlined into one function that reads its arguments,
// simplified); at enqueue, the prepared kernel is specialized on the shape of the work-groups it
// runs (work_group_shape.hpp), vectorized and compiled. The interface is free of LLVM types; the
// implementation (codegen/) lives in libkiln-compiler.so.
#pragma once

#include "compiler/code_generator.hpp"
#include "compiler/frontend.hpp"
#include "devices/cpu/work_group_abi.hpp"
#include "devices/cpu/work_group_shape.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::cpu {

/// The sub-group sizes a kernel may require (intel_reqd_sub_group_size,
/// CL_DEVICE_SUB_GROUP_SIZES_INTEL): the widths the vectorizer compiles, and the emulation
/// (codegen/work_group/sub_group_emulation.hpp) runs, for any kernel.
inline constexpr std::array<uint32_t, 5> kSubGroupSizes = {4, 8, 16, 32, 64};

/// What a build leaves for the launches: plain data, so that the on-disk cache can keep it and
/// a later process can use it without loading LLVM until a kernel first runs.
struct PreparedProgram {
  /// LLVM bitcode: one prepared work-group function per kernel, plus the program's globals.
  compiler::Bitcode module;
  /// Whether the program is optimized (not built with -cl-opt-disable).
  bool optimize = true;
  /// The work-item vectorizer's lanes as requested at build: 1 for none, 0 for the automatic
  /// choice, else a width forced with KILN_SIMD_WIDTH.
  uint32_t requestedSimdWidth = 0;
  /// Print what the vectorizer does with each specialization (KILN_VECTORIZE_REPORT at build).
  bool reportVectorization = false;
  /// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, per kernel in ProgramInfo's order: a local
  /// size along dimension 0 that is a multiple of it leaves no SIMD lane idle.
  std::vector<uint32_t> preferredMultiples;
  /// The work-items of each kernel's sub-groups (get_max_sub_group_size), in ProgramInfo's
  /// order: the kernel's intel_reqd_sub_group_size, else the vectorizer's lanes.
  std::vector<uint32_t> subGroupWidths;
};

/// A kernel's work-group function for one shape of work-group.
struct WorkGroupCode {
  WorkGroupFunction function = nullptr;
  /// Work-items of dimension 0 the function runs together in the lanes of vectors (1: none).
  uint32_t simdWidth = 1;
  /// Bytes of storage the function needs in WorkGroupParams::privateMemory per SIMD group
  /// (simdWidth work-items of dimension 0, the rest of a row included).
  uint64_t privateBytesPerSimdGroup = 0;
  /// Neighbouring work-groups a worker should run in step, each taking its turn
  /// (codegen/work_group/grid_stride_turns.hpp): 1 for code without turns.
  uint32_t groupsInStep = 1;
  /// Bytes of stack the function uses (its frame: spills and what else did not fit in
  /// registers).
  uint64_t stackBytes = 0;
  /// How long one work-group of this code took lately, in nanoseconds (0 before it first ran):
  /// kept beside the code by the driver's cache (work_group_code_cache.hpp), null elsewhere.
  std::atomic<uint32_t> *recentGroupNanoseconds = nullptr;
};

/// The native code of one program's kernels, compiled one specialization at a time; the code
/// stays loaded as long as this object lives.
class JitProgram {
public:
  virtual ~JitProgram() = default;
  /// Compiles kernel number `kernel` (ProgramInfo's order) for work-groups of `shape`. Thread
  /// safe. On failure returns false and sets `error`.
  virtual bool specialize(size_t kernel, const WorkGroupShape &shape, WorkGroupCode &code,
                          std::string &error) = 0;
};

/// The CPU device's code generator.
class KernelJit : public compiler::CodeGenerator {
public:
  /// What it registers under in the code generator list.
  static constexpr std::string_view kKind = "cpu";

  /// Prepares every kernel of `module` (a linked executable), reading the vectorizer's settings
  /// from the environment. On failure (a kernel the CPU cannot run) returns false and sets
  /// `error`.
  virtual bool prepare(const compiler::Bitcode &module, const compiler::ProgramInfo &info,
                       bool optimize, PreparedProgram &prepared, std::string &error) = 0;
  /// The program ready for specialization. Cheap: nothing is compiled until a kernel runs.
  virtual std::unique_ptr<JitProgram> load(const PreparedProgram &prepared,
                                           const compiler::ProgramInfo &info) = 0;
  /// The host CPU as LLVM names it (e.g. "znver4"), for device queries and cache keys.
  virtual std::string hostCpuName() = 0;
};

} // namespace kiln::cpu
