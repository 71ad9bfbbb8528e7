//===- uniform_atomics.hpp - One atomic add for the lanes that add to one address ===//
//
// The vectorizer runs atomics once per lane, in lane order. Where every lane adds to the same
// address (a counter, a total: `atomic_fetch_add(counter, 1)`, `atomic_add(&sum, x)`), a SIMD
// group of 32 lanes would make 32 atomics on one cache line, and the workers that share it take
// the line from each other as often. Instead the SIMD group adds the sum of its active lanes'
// values in one atomic, and each lane's result is the value before it plus the values of the
// active lanes before its own: what the lanes would have seen had their atomics run one after
// another with nothing between them, which is an order the memory model allows (as GPU
// compilers' atomic optimizers do for a warp). Integer add and sub only: their sums regroup
// exactly, and they are the counters and totals; a float add does not.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <functional>

namespace kiln::cpu::vectorizer {

/// Whether `atomic` is an integer add or sub whose address is the same in every lane
/// (`shapeOf` gives the shapes), which the lanes then make as one.
bool combinesLanes(const llvm::AtomicRMWInst &atomic,
                   const std::function<Shape(const llvm::Value *)> &shapeOf);

/// Lane i of the result: the sum of `values`' lanes before i (0 in lane 0).
llvm::Value *exclusiveLaneSums(llvm::IRBuilder<> &builder, llvm::Value *values);

} // namespace kiln::cpu::vectorizer
