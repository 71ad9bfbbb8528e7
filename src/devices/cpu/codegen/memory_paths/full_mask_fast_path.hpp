//===- full_mask_fast_path.hpp - Plain loads and stores when every lane is active ===//
//
// The vectorizer gives a memory access a lane mask wherever some work-items may be inactive:
// in divergent loops, under divergent branches, in the last SIMD group of an odd work-group.
// Usually every lane is active all the same, or, on a rarely taken side such as a kernel's
// border case, none is. x86 masked loads and stores cost more than plain ones even then: on
// AMD's Zen cores a masked load waits for its mask and is not overlapped with the memory misses
// of the next iterations, which halves a stream's bandwidth or worse, and a masked store is
// microcoded whatever its mask. This step gives each masked load and store of consecutive
// addresses a branch on "the mask is full" (a plain access) and one on "the mask is empty" (no
// access); each is taken the same way by most iterations, so it costs a predicted jump.
//
// Where several accesses of one block share a mask (a stencil's loads and its store under the
// test for the border), the stretch from the first to the last gets one test and a copy of its
// own with plain accesses. With a branch per access, the code generator could not move the
// arithmetic between the branches, and every value loaded was live at once: at 64 lanes the
// suite's Sobel filter (8 loads of 4 vectors each) spilled to the stack.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"

namespace kiln::cpu {

/// Gives every `llvm.masked.load` and `llvm.masked.store` of `function` whose mask is not a
/// constant a path that does a plain load or store when all its lanes are active (one for all the
/// accesses of a block that share a mask) and one that skips it when none is; returns how many
/// accesses got them.
unsigned addFullMaskFastPaths(llvm::Function &function);

} // namespace kiln::cpu
