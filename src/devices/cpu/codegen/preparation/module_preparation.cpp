//===- module_preparation.cpp - Retarget a SPIR64 module to the host ------===//
#include "devices/cpu/codegen/preparation/module_preparation.hpp"

#include "compiler/llvm/kernel_inlining.hpp"

using namespace llvm;

namespace kiln::cpu {

void retargetModuleToHost(Module &module, const Triple &triple, const DataLayout &layout) {
  // SPIR64 and x86-64 agree on the size and alignment of every OpenCL C type (64-bit pointers
  // and longs, vectors aligned to their size), so the IR stays valid under the host layout.
  module.setTargetTriple(triple);
  module.setDataLayout(layout);

  compiler::markEverythingForInlining(module);
}

} // namespace kiln::cpu
