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

/// Kiln's modules are LLVM bitcode inside LLVM's bitcode wrapper (so llvm-dis and the bitcode
/// reader take them as they are), followed by a checksum of everything before it:
///
///   offset 0        wrapper header: 0x0B17C0DE, 0, 20 (bitcode offset), N (bitcode size), 0
///   offset 20       N bytes of bitcode
///   offset 20 + N   "KILN", then xxh3-64 of bytes [0, 20 + N), little endian
///
/// LLVM's bitcode reader is not hardened against damaged input (a flipped bit can crash it or
/// go unnoticed), so readModule checks the checksum before parsing anything.
Bitcode writeModule(const llvm::Module &module);

/// Checks the checksum, parses and fully materializes `bytes`, then checks that the result is
/// well-formed IR for SPIR64. Damaged or foreign input comes back as an error naming `what`.
llvm::Expected<std::unique_ptr<llvm::Module>>
readModule(std::span<const uint8_t> bytes, llvm::LLVMContext &context, llvm::StringRef what);

} // namespace kiln::compiler
