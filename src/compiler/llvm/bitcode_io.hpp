// Bitcode in and out of the LLVM-free Bitcode byte vectors that cross into the runtime.
#pragma once

#include "compiler/frontend.hpp"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <span>

namespace kiln::compiler {

/// The triple of every module Kiln produces and accepts.
inline constexpr const char *kSpirTriple = "spir64-unknown-unknown";

/// Parses and fully materializes `bytes`, then checks that the result is well-formed IR for
/// SPIR64. Damaged or foreign input comes back as an error naming `what`, never as a crash.
llvm::Expected<std::unique_ptr<llvm::Module>>
readModule(std::span<const uint8_t> bytes, llvm::LLVMContext &context, llvm::StringRef what);

Bitcode writeModule(const llvm::Module &module);

} // namespace kiln::compiler
