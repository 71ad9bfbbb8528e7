//===- codegen_error.hpp - The CUDA code generator's failures ------------===//
#pragma once

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace kiln::cuda {

/// A failure of the CUDA code generator; its message ends up in the build log.
inline llvm::Error codegenError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace kiln::cuda
