//===- warp_lanes.hpp - Sub-groups as warps and parts of warps -------------===//
//
// A GPU sub-group is a warp, or a part of one of 8 or 16 lanes (for kernels written for Intel
// GPUs with intel_reqd_sub_group_size(8 or 16)). CUDA forms warps from consecutive linear thread
// indices, as OpenCL's sub-groups are formed from linear local ids, so lane i of a part is
// sub-group local id i. The builtin library's sub-group primitives
// (compiler/llvm/sub_group_primitives.hpp) become the warp's .sync instructions over the lanes
// that run the call (activemask): shfl.sync.idx for shuffles, vote.sync.ballot for ballots; the
// sub-group barrier is bar.warp.sync over every lane that exists, which makes the warp converge;
// on sm_80 and later the reductions of 32-bit integers are redux.sync.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/llvm/sub_group_primitives.hpp"
#include "devices/cuda/ptx_compiler.hpp"

#include "llvm/IR/IRBuilder.h"

namespace kiln::cuda {

/// The function attribute of a kernel entry that holds its sub-group width.
inline constexpr const char *kSubGroupWidthAttribute = "kiln-sub-group-width";

/// The value of `call`, a call of `primitive`, for sub-groups of `width` lanes, computed before
/// it; null for the barrier (which has none).
llvm::Value *warpLaneValue(llvm::IRBuilder<> &builder, compiler::SubGroupPrimitive primitive,
                           llvm::CallBase &call, unsigned width);

/// The value of `call`, a call of the library's native reduction (sm_80's redux.sync over the
/// lanes of the caller's cluster that run it), computed before it.
llvm::Expected<llvm::Value *> warpReduction(llvm::IRBuilder<> &builder, llvm::CallBase &call);

} // namespace kiln::cuda
