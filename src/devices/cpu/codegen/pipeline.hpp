//===- pipeline.hpp - The CPU's kernel compiler, step by step -------------===//
//
// The whole order in which the CPU device's code generator transforms a program, in two
// functions, one per moment it runs: at clBuildProgram every kernel becomes a prepared
// work-group function (still one work-item's code, the same for every launch), and when a
// launch first needs a shape of work-group, the prepared function is specialized on that shape,
// vectorized, turned into work-item loops, optimized and given its memory fast paths. Both list
// every step, in order, with what it is for; the JIT (jit/cpu_kernel_jit.cpp) only sets up,
// caches and links around them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/llvm/quiet_diagnostics.hpp"
#include "devices/cpu/codegen/work_group/work_group_function.hpp"
#include "devices/cpu/kernel_jit.hpp"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace kiln::cpu {

/// At build: turns `module`, a linked SPIR64 executable, into the prepared program: every kernel
/// of `info` a work-group function, retargeted to `machine`, and nothing else but the program's
/// variables. Fills `prepared` but for its module, which the caller writes from `module`.
llvm::Error prepareProgram(llvm::Module &module, const compiler::ProgramInfo &info,
                           llvm::TargetMachine &machine, bool optimize, PreparedProgram &prepared);

/// A work-group function compiled for one shape, in a module of its own, ready for the JIT.
struct ShapeCompilation {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  llvm::Function *function = nullptr;
  SpecializedWorkGroup specialized;
  /// Whether the work-items asked to run interleaved do (the optimizer's unroll-and-jam could).
  bool interleaved = false;
  /// Whether the lanes of a SIMD group that read or write a pipe together each reserve the
  /// position their rank names.
  bool pipesByLaneRank = false;
  /// What optimization and, at the JIT's first lookup, code generation diagnose.
  std::shared_ptr<const compiler::DiagnosedErrors> diagnostics;
  unsigned streamingStores = 0;
  unsigned indirectPrefetches = 0;
  unsigned stridedPrefetches = 0;
  /// Float divisions made a reciprocal's product and a correction (reciprocal_division.hpp).
  unsigned reciprocalDivisions = 0;
  /// Float computations on small integers replaced by integer arithmetic (float_round_trips.hpp).
  unsigned floatRoundTrips = 0;
  /// Loops that may wait for another sub-group and yield each round (spin_loop_yields.hpp).
  unsigned waitingLoops = 0;
  /// Grid-stride loops that take turns, and the work-groups they run in step with
  /// (grid_stride_turns.hpp; SpecializedWorkGroup::groupsInStep).
  unsigned turnLoops = 0;
};

/// At a launch's first use of `shape`: the prepared work-group function of `kernel` specialized
/// and optimized for it, named `symbol`, in a module identified as `moduleIdentifier`.
llvm::Expected<ShapeCompilation>
compileForShape(const PreparedProgram &prepared, const std::string &kernel, unsigned subGroupWidth,
                const WorkGroupShape &shape, const std::string &symbol,
                const std::string &moduleIdentifier, llvm::TargetMachine &machine);

} // namespace kiln::cpu
