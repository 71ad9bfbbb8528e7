//===- instruction_widening.hpp - One work-item's code for W lanes --------===//
//
// The last step of the work-item vectorizer. The function's control flow is already uniform
// (control_linearization.hpp) and every value has a shape (vector_shape.hpp); this step keeps
// uniform and strided values scalar and turns every varying one into a vector of W lanes:
//   - arithmetic, comparisons, casts, selects and address computations become their vector
//     forms; intrinsics that have vector forms are called in them;
//   - loads and stores at strided(element size) addresses become masked vector loads and
//     stores; the components of vector types, read or written together, vector loads and stores
//     of their whole run with shuffles (interleaved_access.hpp); other addresses, gathers and
//     scatters; uniform ones stay scalar where the block's
//     lanes are known to run, and are masked by "any lane" elsewhere;
//   - what must happen once per work-item in order (atomics, calls with side effects) runs lane
//     by lane, each under its lane's mask; calls without side effects run lane by lane
//     unconditionally;
//   - each alloca becomes W copies side by side.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/control_linearization.hpp"
#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

namespace kiln::cpu::vectorizer {

/// `registerBits`: the width of the target's vector registers, the size of the pieces in which
/// interleaved groups are read and written.
llvm::Error widenInstructions(llvm::Function &function, const ShapeAnalysis &shapes,
                              const LinearizedControl &control, ShapeSeeds seeds, unsigned width,
                              unsigned registerBits);

} // namespace kiln::cpu::vectorizer
