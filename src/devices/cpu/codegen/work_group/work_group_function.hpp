//===- work_group_function.hpp - A kernel as a work-group function -------===//
//
// Builds `__kiln_wg_<kernel>(const LaunchParams *, const WorkGroupParams *)`, the function the
// CPU runtime calls once per work-group (devices/cpu/work_group_abi.hpp): a prologue that loads
// the arguments and the group's parameters, then the kernel, fully inlined, turned into loops
// over the work-items (barrier_regions.hpp). It is built in two steps, prepared once per build,
// then specialized at enqueue on the shape of the work-groups it runs; the steps are here, their
// order is codegen/pipeline.cpp's.
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
  /// Neighbouring work-groups to run in step, taking turns (grid_stride_turns.hpp); 1 without
  /// turns.
  unsigned groupsInStep = 1;
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

/// A kernel's work-group function as first made: a prologue that reads the arguments from the
/// argument block and a body that calls the kernel.
struct WorkGroupShell {
  llvm::Function *function = nullptr;
  /// The prologue's pointer to the work-group's local memory.
  llvm::Value *localMemory = nullptr;
};

/// Makes the work-group function of `kernel` in `module` (already retargeted to the host,
/// module_preparation.hpp), named workGroupFunctionName().
llvm::Expected<WorkGroupShell> createWorkGroupFunction(llvm::Module &module,
                                                       const compiler::KernelInfo &kernel);

/// Inlines every call to a defined function into `function`, repeatedly, until only
/// declarations are called; fails on recursion, which OpenCL C forbids.
llvm::Error inlineKernel(llvm::Function &function);

/// Places the __local variables the work-group function uses at the start of the work-group's
/// local memory, in module order, each at its alignment (the layout whose size the front end
/// reports as the kernel's static local memory).
llvm::Error placeLocalVariables(llvm::Module &module, const WorkGroupShell &shell,
                                const compiler::KernelInfo &kernel);

/// Replaces the calls of the work-group scratch primitive (compiler/work_group_scratch.hpp) by
/// its place in the work-group's local memory: after the launch's own.
void placeWorkGroupScratch(llvm::Module &module, const WorkGroupShell &shell);

/// Replaces the calls of the work-item primitives that `shape` determines by constants: the
/// local and enqueued sizes, and the global offset when it is zero.
void substituteShapeConstants(llvm::Module &module, llvm::Function &function,
                              const WorkGroupShape &shape);

/// Folds what the substituted constants decide: the arithmetic on them, and the branches they
/// settle, whose dead sides are deleted. A kernel's `if (get_num_sub_groups() == 1) return;`
/// before a barrier then leaves no branch for the vectorizer to take for divergent control flow.
void foldShapeConstants(llvm::Function &function);

/// The prologue of a specialized work-group function and the group's private storage it loads,
/// for the steps after vectorization.
struct WorkGroupPrologue {
  llvm::BasicBlock *block = nullptr;
  llvm::Value *privateMemory = nullptr;
  /// WorkGroupParams::turn (grid_stride_turns.hpp).
  llvm::Value *turn = nullptr;
};
WorkGroupPrologue loadPrivateMemory(llvm::Function &function);

/// Turns the body into loops over the work-items of a group of `shape`, `simdWidth` at a time
/// and `interleave` of those side by side, split at barriers (barrier_regions.hpp). Returns the
/// bytes of private storage per SIMD group.
uint64_t turnIntoWorkItemLoops(llvm::Module &module, llvm::Function &function,
                               const WorkGroupPrologue &prologue, const WorkGroupShape &shape,
                               unsigned simdWidth, unsigned interleave);

/// Replaces the calls of the uniform work-item primitives (the same for every work-item of the
/// group) by reads of the launch and work-group parameters.
void replaceGroupPrimitives(llvm::Module &module, llvm::Function &function);

/// Replaces the printf record reservations (compiler/llvm/printf_lowering.hpp) by reservations
/// in the launch's printf buffer.
void replacePrintfReservations(llvm::Module &module, llvm::Function &function);

/// Answers the address-space queries left after preparation by comparing the pointer with the
/// group's local memory, private storage and stack.
void resolveAddressSpaceQueries(llvm::Function &function, const WorkGroupPrologue &prologue);

} // namespace kiln::cpu
