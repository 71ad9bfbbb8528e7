//===- program_modules.hpp - The modules the CPU's JIT keeps and builds ---===//
//
// A prepared program is one module of bitcode. The JIT holds the program's variables once, in a
// module of their own, and compiles each specialization from a copy of the prepared module that
// keeps only the work-group function it specializes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/frontend.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace kiln::cpu {

llvm::Expected<std::unique_ptr<llvm::Module>> parseModule(const compiler::Bitcode &bitcode,
                                                          llvm::LLVMContext &context);

compiler::Bitcode writeModule(const llvm::Module &module);

/// Returns true (with the verifier's report) when `module` is broken.
bool verifyModuleText(const llvm::Module &module, std::string &problems);

/// Leaves in the prepared module only the work-group functions and what they use. Program-scope
/// variables get names of their own and external linkage: every specialization of every kernel
/// refers to the one definition the program's JIT holds (its globals module).
void keepOnlyWorkGroupFunctions(llvm::Module &module,
                                const llvm::SmallPtrSetImpl<llvm::Function *> &prepared);

/// The program's variables, defined once for all its specializations.
void keepOnlyVariables(llvm::Module &module);

/// Leaves `kept` as the module's only function body. Read-only variables stay defined, so that
/// the optimizer sees their contents; the others become references to the globals module.
void isolateWorkGroupFunction(llvm::Module &module, llvm::Function &kept);

} // namespace kiln::cpu
