//===- direct_calls.hpp - The calls that call a function -------------------===//
//
// Steps that replace a declared primitive's calls walk its users: only the calls of the
// function itself, not the places that pass it as a value.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace kiln::compiler {

/// Every call whose callee is `function`, collected first so the caller may erase them.
inline llvm::SmallVector<llvm::CallInst *, 8> directCallsOf(llvm::Function &function) {
  llvm::SmallVector<llvm::CallInst *, 8> calls;
  for (llvm::User *user : function.users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(user);
        call != nullptr && call->getCalledFunction() == &function)
      calls.push_back(call);
  return calls;
}

} // namespace kiln::compiler
