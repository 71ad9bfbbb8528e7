//===- device_queries.cpp - The builtin library's questions to a device -----===//
#include "compiler/llvm/device_queries.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace kiln::compiler {

bool asksDeviceQuery(const Module &module, StringRef name) {
  const Function *query = module.getFunction(name);
  return query != nullptr && !query->use_empty();
}

void answerDeviceQuery(Module &module, StringRef name, bool answer) {
  Function *query = module.getFunction(name);
  if (query == nullptr)
    return;
  SmallPtrSet<Function *, 8> asking;
  for (User *user : make_early_inc_range(query->users()))
    if (auto *call = dyn_cast<CallBase>(user)) {
      asking.insert(call->getFunction());
      call->replaceAllUsesWith(ConstantInt::get(call->getType(), answer));
      call->eraseFromParent();
    }
  for (Function *function : asking) {
    for (BasicBlock &block : *function)
      ConstantFoldTerminator(&block, /*DeleteDeadConditions=*/true);
    removeUnreachableBlocks(*function);
  }
}

void deleteMarks(Module &module, StringRef name) {
  Function *mark = module.getFunction(name);
  if (mark == nullptr)
    return;
  for (User *user : make_early_inc_range(mark->users()))
    if (auto *call = dyn_cast<CallBase>(user))
      call->eraseFromParent();
}

} // namespace kiln::compiler
