//===- opaque_type_lowering.hpp - OpenCL's opaque types as plain pointers -===//
//
// Clang's SPIR target spells OpenCL's opaque types (event_t, sampler_t, queue_t, clk_event_t,
// reserve_id_t, ...) as target extension types such as target("spirv.Event"). Neither the x86
// nor the NVPTX backend selects them, and a kernel may keep such values anywhere (an array of
// event_t, a value live across a barrier that moves to per-work-item storage). On Kiln's devices
// each of them is an ordinary value, so this step rewrites every one into a pointer before anything
// else runs: function signatures, instructions, constants and global variables.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::compiler {

/// Rewrites every target extension type in `module` into `ptr`. Fails when one remains.
llvm::Error lowerOpaqueTypes(llvm::Module &module);

} // namespace kiln::compiler
