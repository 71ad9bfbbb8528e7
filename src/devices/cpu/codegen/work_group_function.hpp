//===- work_group_function.hpp - A kernel as a work-group function -------===//
//
// Builds `__kiln_wg_<kernel>(const LaunchParams *, const WorkGroupParams *)`, the function the
// CPU runtime calls once per work-group (devices/cpu/work_group_abi.hpp): a prologue that loads
// the arguments and the group's parameters, then the kernel, fully inlined, turned into loops
// over the work-items (barrier_regions.hpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <string>

namespace kiln::cpu {

struct GeneratedWorkGroup {
  llvm::Function *function = nullptr;
  /// Work-items of dimension 0 that run together in the lanes of vectors (1: not vectorized).
  unsigned simdWidth = 1;
  /// Why the kernel was not vectorized when it was asked to be.
  std::string notVectorized;
  /// Storage per SIMD group in WorkGroupParams::privateMemory.
  uint64_t privateBytesPerSimdGroup = 0;
  /// For a vectorized kernel, the same function for work-groups whose size along dimension 0 is
  /// a multiple of simdWidth (every lane of every SIMD group active: no masked memory accesses).
  llvm::Function *fullGroupsFunction = nullptr;
};

/// The symbol of a kernel's work-group function, and of its version for full SIMD groups.
std::string workGroupFunctionName(const std::string &kernelName);
std::string fullGroupsFunctionName(const std::string &kernelName);

/// Builds the work-group function of `kernel` in `module`, which has already been retargeted
/// to the host (module_preparation.hpp), running `simdWidth` work-items at a time in the lanes
/// of vectors where the kernel allows it (1: one at a time; 0: as many as suit the kernel and
/// the target, see vectorizeWorkItems).
llvm::Expected<GeneratedWorkGroup> buildWorkGroupFunction(llvm::Module &module,
                                                          const compiler::KernelInfo &kernel,
                                                          llvm::TargetMachine &machine,
                                                          unsigned simdWidth);

} // namespace kiln::cpu
