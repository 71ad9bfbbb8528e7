// Linking compiled OpenCL C modules into a library or an executable.
#pragma once

#include "compiler/frontend.hpp"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kiln::compiler {

/// Links `modules` into one module owned by `context`. A library (options.createLibrary) is a
/// plain merge; an executable gets the program linking options applied, its printf calls
/// lowered (printf_lowering.hpp), the builtin library linked in (only the functions it needs),
/// and must leave nothing undefined. Returns null on
/// failure, with the reasons in `log`.
std::unique_ptr<llvm::Module> linkProgram(std::span<const Bitcode *const> modules,
                                          const BuildOptions &options, llvm::LLVMContext &context,
                                          std::string &log);

/// One line per function or variable an executable uses but nothing defines, other than what the
/// device code generator provides: LLVM intrinsics, `__kiln_*` primitives and the host math
/// functions of src/builtins/host_math_functions.def. Empty when the module is complete.
std::vector<std::string> undefinedSymbols(const llvm::Module &module);

} // namespace kiln::compiler
