//===- module_preparation.cpp - Retarget a SPIR64 module to the host ------===//
#include "devices/cpu/codegen/module_preparation.hpp"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {

void retargetModuleToHost(Module &module, const Triple &triple, const DataLayout &layout) {
  // SPIR64 and x86-64 agree on the size and alignment of every OpenCL C type (64-bit pointers
  // and longs, vectors aligned to their size), so the IR stays valid under the host layout.
  module.setTargetTriple(triple);
  module.setDataLayout(layout);

  for (Function &function : module) {
    function.setCallingConv(CallingConv::C);
    // Programs built with -cl-opt-disable still need their functions inlined into the
    // work-group functions; optimization levels are the code generator's choice.
    function.removeFnAttr(Attribute::OptimizeNone);
    function.removeFnAttr(Attribute::NoInline);
    if (!function.isDeclaration()) {
      function.addFnAttr(Attribute::AlwaysInline);
      function.setLinkage(GlobalValue::InternalLinkage);
    }
    for (Instruction &instruction : instructions(function))
      if (auto *call = dyn_cast<CallBase>(&instruction))
        call->setCallingConv(CallingConv::C);
  }
}

} // namespace kiln::cpu
