//===- kernel_inlining.hpp - Everything inlined into the kernels ---------===//
//
// Both devices compile each kernel into one function with every call inlined: the CPU to see
// every barrier of a work-group function, the GPU because its entries read the launch's
// parameters, which only they have. This prepares a linked module for that.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// Gives every function and call the C calling convention and makes every defined function
/// internal and always inlined, whatever the program was built with (-cl-opt-disable marks
/// functions optnone and noinline, SPIR-V's DontInline marks functions and calls noinline;
/// optimization levels are the code generator's choice).
void markEverythingForInlining(llvm::Module &module);

} // namespace kiln::compiler
