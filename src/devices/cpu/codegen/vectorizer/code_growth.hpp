//===- code_growth.hpp - How much code the vectorizer may make ------------===//
//
// What the lanes cost at compile time. Most of a kernel's code widens one for one, but what
// runs lane by lane (volatile and atomic accesses, calls, gathers and scatters that the code
// generator splits) is copied once per lane, so a kernel made mostly of such code grows by the
// SIMD width and more. The passes after the vectorizer and the code generator then take time
// that grows faster than the code: on a random program's private structures, 3,600
// instructions grew to 142,000 in 16 lanes and took seconds to compile against 0.07 s scalar.
//
// The budget bounds that: vectorized code larger than a few times one work-item's code, plus a
// constant that lets small kernels grow as far as their lanes take them (a histogram's 64 atomic
// increments), is not worth its compile time, and the kernel is compiled one work-item at a time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/IR/Function.h"

#include <cstdint>
#include <string>

namespace kiln::cpu::vectorizer {

/// The instructions the code generator makes of `function`'s body: one per IR instruction,
/// and one per lane for masked gathers, scatters, expanding loads and compressing stores, which
/// x86 cores without fast gathers (AMD's) run lane by lane.
uint64_t generatedInstructions(const llvm::Function &function);

/// A lower bound of generatedInstructions of `function` once widened to `width` lanes, from
/// what surely runs once per lane: volatile and atomic accesses at addresses that differ between
/// lanes, gathers and scatters, and calls with arguments that differ between lanes.
uint64_t leastVectorizedInstructions(const llvm::Function &function, const ShapeAnalysis &shapes,
                                     unsigned width);

/// How many instructions vectorized code may have where one work-item's has `scalar`.
uint64_t vectorizedCodeBudget(uint64_t scalar);

/// Why code of `vectorized` instructions in `width` lanes is not worth compiling, for the
/// vectorizer's report.
std::string describeOverBudget(uint64_t vectorized, uint64_t scalar, unsigned width);

} // namespace kiln::cpu::vectorizer
