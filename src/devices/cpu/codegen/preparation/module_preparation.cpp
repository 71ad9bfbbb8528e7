//===- module_preparation.cpp - Retarget a SPIR64 module to the host ------===//
#include "devices/cpu/codegen/preparation/module_preparation.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/kernel_inlining.hpp"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {

void retargetModuleToHost(Module &module, const Triple &triple, const DataLayout &layout) {
  // SPIR64 and x86-64 agree on the size and alignment of every OpenCL C type (64-bit pointers
  // and longs, vectors aligned to their size), so the IR stays valid under the host layout.
  module.setTargetTriple(triple);
  module.setDataLayout(layout);

  compiler::markEverythingForInlining(module);
}

Error rejectInlineAssembly(const Module &module) {
  for (const Function &function : module)
    for (const Instruction &instruction : instructions(function))
      if (auto *call = dyn_cast<CallBase>(&instruction); call && call->isInlineAsm()) {
        StringRef name = function.getName();
        name.consume_front("__clang_ocl_kern_imp_"); // a kernel's body, as Clang names it
        return compiler::codegenError("the program holds an asm statement (in '" + name +
                                      "'); the CPU device does not run inline assembly");
      }
  return Error::success();
}

} // namespace kiln::cpu
