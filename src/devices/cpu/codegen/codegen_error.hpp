//===- codegen_error.hpp - The code generator's failures -----------------===//
//
// A failure of the CPU code generator, as an llvm::Error whose message ends up in the build log
// (or, for the vectorizer, in the reason a kernel stays scalar).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace kiln::cpu {

inline llvm::Error codegenError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace kiln::cpu
