//===- texture_loop_versioning.hpp - One loop per image format choice ---===//
//
// A loop of image reads carries the builtin library's choices: the software path where the
// image has no texture for the sampler, the sRGB conversion where its order is sRGB. Each is
// the same for every iteration, yet as branches they split the loop's body into blocks, and
// ptxas issues a block's texture fetch only after the previous block's results are in: every
// iteration waits out a fetch's latency. NVIDIA's compiler, whose texture references carry the
// format, unrolls such a loop into one block of fetches. This step copies each small innermost
// loop that fetches from textures once per condition that does not change in it (the loop runs
// in the copy that matches the condition at its entry), so that each copy is one block, which
// the unrolling after it (loop_unrolling.hpp) turns into overlapping fetches. LLVM's own loop
// unswitching declines these loops: it counts the software path's size against the copy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln::cuda {

/// Runs after the optimization pipeline, before the unrolling, with its clean-up.
void versionTextureLoops(llvm::Module &module, llvm::TargetMachine &machine);

} // namespace kiln::cuda
