//===- work_group_function.hpp - A kernel as a work-group function -------===//
//
// Builds `__kiln_wg_<kernel>(const LaunchParams *, const WorkGroupParams *)`, the function the
// CPU runtime calls once per work-group (devices/cpu/work_group_abi.hpp): a prologue that loads
// the arguments and the group's parameters, then the kernel, fully inlined, turned into loops
// over the work-items (barrier_regions.hpp). It is built in two steps: prepared once per build,
// then specialized at enqueue on the shape of the work-groups it runs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/program_info.hpp"
#include "devices/cpu/work_group_shape.hpp"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <string>

namespace kiln::cpu {

/// A kernel's work-group function specialized for one shape of work-group.
struct SpecializedWorkGroup {
  llvm::Function *function = nullptr;
  /// Work-items of dimension 0 that run together in the lanes of vectors (1: not vectorized).
  unsigned simdWidth = 1;
  /// Why the kernel was not vectorized when it was asked to be.
  std::string notVectorized;
  /// Work-items the scalar work-item loop runs interleaved (1: one at a time); see
  /// WorkItemVectorization::interleave.
  unsigned interleave = 1;
  /// Whether the interleaved work-items' chains go side by side; see
  /// WorkItemVectorization::chainsSideBySide.
  bool chainsSideBySide = false;
  /// Storage per SIMD group in WorkGroupParams::privateMemory.
  uint64_t privateBytesPerSimdGroup = 0;
  /// The code's size one work-item at a time and vectorized; see
  /// WorkItemVectorization::scalarInstructions.
  uint64_t scalarInstructions = 0;
  uint64_t vectorInstructions = 0;
};

/// Whether `value` is a buffer argument's pointer as the prologue of a work-group function reads
/// it from the argument block: the start of the buffer the launch passes (or null).
bool isBufferArgument(const llvm::Value *value);

/// The symbol of a kernel's prepared work-group function.
std::string workGroupFunctionName(const std::string &kernelName);

/// Builds the prepared work-group function of `kernel` in `module`, which has already been
/// retargeted to the host (module_preparation.hpp): a prologue that reads the arguments, then
/// the kernel fully inlined and simplified, still one work-item's code.
llvm::Expected<llvm::Function *> prepareWorkGroupFunction(llvm::Module &module,
                                                          const compiler::KernelInfo &kernel,
                                                          llvm::TargetMachine &machine);

/// Turns the prepared function `function` into the work-group function for work-groups of
/// `shape`: the shape's sizes become constants, `simdWidth` work-items run at a time in the
/// lanes of vectors where the kernel allows it (1: one at a time; 0: as many as suit the kernel,
/// the target and the shape, see vectorizeWorkItems), and the body becomes work-item loops.
/// `mayInterleave`: see vectorizeWorkItems.
llvm::Expected<SpecializedWorkGroup> specializeWorkGroupFunction(llvm::Function &function,
                                                                 const WorkGroupShape &shape,
                                                                 llvm::TargetMachine &machine,
                                                                 unsigned simdWidth,
                                                                 bool mayInterleave = true);

} // namespace kiln::cpu
