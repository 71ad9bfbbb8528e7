//===- codegen_error.hpp - A code generator's failures ----------------------===//
//
// A failure of a device's code generator, as an llvm::Error whose message ends up in the build
// log (or, for the CPU's vectorizer, in the reason a kernel stays scalar).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace kiln::compiler {

inline llvm::Error codegenError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace kiln::compiler
