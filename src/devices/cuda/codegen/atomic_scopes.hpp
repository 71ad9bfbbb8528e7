//===- atomic_scopes.hpp - PTX scopes and orderings of atomics -----------===//
//
// OpenCL's atomics carry an order and a scope. The builtin library, compiled once for every
// device, writes them as LLVM atomics of their order at system scope, marking volatile the ones
// whose scope reaches beyond the device (memory_scope_all_svm_devices: the host and the other
// devices of the context use the memory at the same time). NVPTX gives loads, stores, fences and
// compare-exchanges their order and scope, but emits every read-modify-write as a relaxed
// `atom` of GPU scope. This step gives the device's atomics the scope they need and their RMWs
// their order:
//   - an atomic marked for the whole system stays at system scope (`.sys`); its RMW becomes
//     NVVM's `atom.sys` between system-scope fences where PTX has the operation, else a loop of
//     compare-exchanges, whose `atom.cas` carries the scope and the order;
//   - any other atomic gets GPU scope (`.gpu`; `.cta` for a fence around __local memory), and an
//     RMW stronger than relaxed is surrounded by the fences its order asks for.
// Run it after the private atomics are lowered and before optimization.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cuda {

void scopeAtomics(llvm::Module &module);

} // namespace kiln::cuda
