//===- private_atomics.hpp - Atomics on private memory -------------------===//
//
// OpenCL C 2.0 lets a work-item apply atomic operations to its own private memory through a
// generic pointer. PTX has no atomic instruction for the local state space, where private
// memory lives. A private location is touched by one work-item only, so there an atomic is
// its plain load-operate-store. This step makes that change where the pointer provably comes
// from a private variable, and chooses at run time (isspacep.local) where a generic pointer may
// point anywhere. Run it once everything is inlined into the entries.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cuda {

void lowerPrivateAtomics(llvm::Module &module);

} // namespace kiln::cuda
