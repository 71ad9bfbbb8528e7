//===- kernel_inlining.cpp - Everything inlined into the kernels ---------===//
#include "compiler/llvm/kernel_inlining.hpp"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::compiler {

void markEverythingForInlining(Module &module) {
  for (Function &function : module) {
    function.setCallingConv(CallingConv::C);
    function.removeFnAttr(Attribute::OptimizeNone);
    function.removeFnAttr(Attribute::NoInline);
    if (!function.isDeclaration()) {
      function.addFnAttr(Attribute::AlwaysInline);
      function.setLinkage(GlobalValue::InternalLinkage);
    }
    for (Instruction &instruction : instructions(function))
      if (auto *call = dyn_cast<CallBase>(&instruction)) {
        call->setCallingConv(CallingConv::C);
        // SPIR-V's DontInline function control reaches the calls too.
        call->removeFnAttr(Attribute::NoInline);
      }
  }
}

} // namespace kiln::compiler
