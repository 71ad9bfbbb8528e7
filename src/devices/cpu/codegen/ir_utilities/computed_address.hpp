//===- computed_address.hpp - Addresses that arithmetic alone computes ----===//
//
// A gather's addresses come either from arithmetic on the work-item's ids and the kernel's
// arguments (a sorting network's partner, a transpose, `id / w * 2 * w + id % w`) or from data
// read from memory (a CSR column index, a histogram bin). The first kind is often consecutive
// at run time even though no stride is known when compiling; the second rarely is. Both the
// vectorizer's profitability rule and the contiguity check of gathers tell them apart here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Value.h"

namespace kiln::cpu {

/// Whether `address` is computed without reading memory: following only the operands for
/// which `follow` holds (the ones that differ between lanes), no load, gather or call other than
/// a side-effect-free intrinsic is reached. Gives up (false) on chains deeper than a few dozen
/// instructions.
bool isComputedWithoutLoads(const llvm::Value *address,
                            llvm::function_ref<bool(const llvm::Value *)> follow);

} // namespace kiln::cpu
