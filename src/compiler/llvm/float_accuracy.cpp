//===- float_accuracy.cpp - OpenCL's accuracy marks on float math --------===//
#include "compiler/llvm/float_accuracy.hpp"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace kiln::compiler {

bool isFloatSqrtCall(const CallInst &call) {
  const Function *callee = call.getCalledFunction();
  return callee != nullptr && callee->getName().starts_with("_Z4sqrt") &&
         call.getType()->getScalarType()->isFloatTy();
}

void markInexactFloatMath(Module &module) {
  MDBuilder metadata(module.getContext());
  MDNode *division = metadata.createFPMath(kInexactDivisionUlps);
  MDNode *squareRoot = metadata.createFPMath(kInexactSqrtUlps);
  for (Function &function : module)
    for (Instruction &instruction : instructions(function)) {
      if (instruction.getOpcode() == Instruction::FDiv &&
          instruction.getType()->getScalarType()->isFloatTy())
        instruction.setMetadata(LLVMContext::MD_fpmath, division);
      else if (auto *call = dyn_cast<CallInst>(&instruction); call && isFloatSqrtCall(*call))
        instruction.setMetadata(LLVMContext::MD_fpmath, squareRoot);
    }
}

} // namespace kiln::compiler
