// ProgramInfo from a module's kernels: Clang's OpenCL kernel metadata (!kernel_arg_*,
// !reqd_work_group_size, ...) and the IR itself; and the module flags in which the front end
// records build options that later steps need.
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// A kernel entry point: a defined spir_kernel function. (Clang also emits a callable copy of
/// each kernel, `__clang_ocl_kern_imp_<name>`, as a spir_func: that one is not a kernel.)
bool isKernel(const llvm::Function &function);

/// Records in the module whether the source asked for -cl-kernel-arg-info, so a later
/// clLinkProgram (whose options cannot carry it) still knows.
void setArgInfoRequested(llvm::Module &module, bool requested);
bool argInfoRequested(const llvm::Module &module);

/// Records whether the program may flush denormals to zero (-cl-denorms-are-zero). The flag
/// merges as a minimum: a program linked from several objects may flush only if all of them
/// allow it. The code generator decides what to do with it.
void setDenormsAreZero(llvm::Module &module, bool allowed);
bool denormsAreZero(const llvm::Module &module);

/// Describes every kernel of `module`. Missing or malformed metadata (a module from a damaged
/// binary) degrades to what the IR alone tells, never to a crash.
ProgramInfo extractProgramInfo(const llvm::Module &module);

} // namespace kiln::compiler
