//===- uniform_switches.hpp - Switches on uniform values as branch chains -===//
//
// The linearizer takes only two-way branches, so switches are lowered first. LLVM's lowering
// builds a binary search tree whose leaves share the case blocks; the two sides of its branches
// then overlap and cannot stay branches (control_linearization.hpp keeps a uniform branch only
// where its sides are apart), so every case of a switch on a uniform value, an image's channel
// type or order, would run under masks. A switch on a value the same in every lane becomes a
// chain of tests instead, one per case block, each a branch to that block alone.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/IR/Function.h"

namespace kiln::cpu::vectorizer {

/// Rewrites each switch of `function` whose condition `shapes` finds uniform as a chain of
/// conditional branches: for each case block, the test of its case values.
void lowerUniformSwitches(llvm::Function &function, const ShapeAnalysis &shapes);

} // namespace kiln::cpu::vectorizer
