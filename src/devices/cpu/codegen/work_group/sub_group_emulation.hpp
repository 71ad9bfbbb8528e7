//===- sub_group_emulation.hpp - Sub-group primitives without SIMD lanes ---===//
//
// Where the vectorizer runs a kernel's sub-groups in the lanes of vectors, it replaces the
// sub-group primitives (compiler/llvm/sub_group_primitives.hpp) itself. Everywhere else (the
// kernel was not vectorized, the vectorizer is off, the work-groups' rows do not split into
// whole sub-groups) the work-items run one at a time and this step replaces them:
//   - the ids from the linear local id;
//   - with sub-groups of one work-item, a shuffle is the value itself and a ballot the
//     predicate's bit;
//   - with wider sub-groups, a shuffle or ballot writes the work-item's value into its copy of a
//     private variable, waits at a work-group barrier, reads the other work-items' copies
//     (barrier_regions.hpp's work-item slots) and waits again, so the next exchange cannot
//     overwrite a value another work-item has yet to read. A sub-group barrier is a work-group
//     barrier. This is a fallback: the sub-group functions must then be called where the whole
//     work-group calls them, and a kernel that calls them under divergent control flow fails to
//     launch with a message that says so.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/work_group_shape.hpp"

#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

namespace kiln::cpu {

/// Replaces every sub-group primitive left in `function`, whose work-items run one at a time in
/// work-groups of `shape`, for sub-groups of `width` work-items. After vectorization only
/// __kiln_sub_group_id is left, which the first lane's local id gives. Fails where a primitive
/// that exchanges values is called under control flow that divides a sub-group: the emulation
/// needs every work-item of the group at each exchange.
llvm::Error lowerSubGroupPrimitives(llvm::Function &function, unsigned width,
                                    const WorkGroupShape &shape);

/// Replaces __kiln_sub_group_width() by `width`.
void substituteSubGroupWidth(llvm::Function &function, unsigned width);

} // namespace kiln::cpu
