//===- address_space_queries.hpp - Where a generic pointer points --------===//
//
// The builtin library answers to_global, to_local, to_private and get_fence with two
// primitives: __kiln_is_local_pointer and __kiln_is_private_pointer. On the CPU every address
// space is one flat memory, so the answers are range checks: local memory is the work-group's
// WorkGroupParams::localMemory region; private memory is the worker thread's stack (where the
// variables of a work-group function without barriers live) and WorkGroupParams::privateMemory
// (where they live when it has barriers); everything else is global. Where the pointer is
// visibly a cast from a named address space, the answer is known at compile time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Value.h"

#include <optional>

namespace kiln::cpu {

/// The named address space (SPIR numbering: 0 private, 1 global, 2 constant, 3 local) a pointer
/// points into when that is in sight: the pointer has a named space itself, or it is a cast to
/// the generic space of a named-space pointer, or an offset from one. Meaningful only before
/// InstCombine merges the front end's casts with the code generator's own (such as the one from
/// the work-group's local memory to address space 3, which comes before the program's cast to
/// the generic space and is never reached).
std::optional<unsigned> namedAddressSpaceOf(llvm::Value *pointer);

/// The memory regions of one work-group (i64 sizes, pointers of address space 0).
struct AddressSpaceRegions {
  llvm::Value *localMemory = nullptr;
  llvm::Value *localMemorySize = nullptr;
  llvm::Value *privateMemory = nullptr;
  llvm::Value *privateMemorySize = nullptr;
  llvm::Value *stackBase = nullptr;
  llvm::Value *stackSize = nullptr;
};

/// Answers the queries in `function` whose pointer is a cast from a named address space. Run it
/// once everything is inlined and simplified, before full optimization can merge those casts.
void foldAddressSpaceQueries(llvm::Function &function);

/// Replaces the remaining queries in `function` with range checks; `readRegions` is called
/// (once) only when there are some, and emits the loads of the regions' bounds.
void lowerAddressSpaceQueries(llvm::Function &function,
                              llvm::function_ref<AddressSpaceRegions()> readRegions);

} // namespace kiln::cpu
