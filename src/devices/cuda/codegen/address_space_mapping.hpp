//===- address_space_mapping.hpp - SPIR address spaces as NVPTX's --------===//
//
// The front end numbers OpenCL's address spaces as SPIR does (private 0, global 1, constant 2,
// local 3, generic 4); NVPTX numbers its own (generic 0, global 1, shared 3, const 4, local 5,
// with allocas in 0). This step renumbers a whole module: private and generic both become
// NVPTX's generic space (casts between them vanish), constant becomes global (__constant
// buffers are ordinary device memory, read through the read-only cache), local becomes shared.
// It also renames the synchronization scopes of atomics and fences to NVPTX's.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::cuda {

inline constexpr unsigned kNvptxGenericAddressSpace = 0;
inline constexpr unsigned kNvptxGlobalAddressSpace = 1;
inline constexpr unsigned kNvptxSharedAddressSpace = 3;

llvm::Error mapAddressSpacesToNvptx(llvm::Module &module);

} // namespace kiln::cuda
