#include "compiler/llvm/pointer_argument_access.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

namespace kiln::compiler {
namespace {

/// Follows a pointer's uses: derived pointers are followed in turn, accesses recorded.
class AccessWalk {
public:
  /// False as soon as a use may read through the pointer, or cannot be followed.
  bool visit(const llvm::Value &pointer) {
    if (!seen_.insert(&pointer).second)
      return true;
    for (const llvm::Use &use : pointer.uses())
      if (!visitUse(use))
        return false;
    return true;
  }

  bool stores() const { return stores_; }

private:
  bool visitUse(const llvm::Use &use) {
    const llvm::User *user = use.getUser();
    if (llvm::isa<llvm::GetElementPtrInst, llvm::CastInst, llvm::PHINode, llvm::SelectInst>(user))
      return !llvm::isa<llvm::PtrToIntInst>(user) && visit(*user);
    if (llvm::isa<llvm::ICmpInst>(user))
      return true; // compares addresses, reads nothing
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(user)) {
      if (use.getOperandNo() == llvm::StoreInst::getPointerOperandIndex()) {
        stores_ = true;
        return true;
      }
      // The pointer itself is stored: followed where it is kept in a variable of the function
      // (as the front end keeps every parameter), lost anywhere else.
      auto *variable = llvm::dyn_cast<llvm::AllocaInst>(store->getPointerOperand());
      return variable != nullptr && visitLoadsOf(*variable);
    }
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(user))
      return visitCall(*call, use);
    return false; // loads, atomics, and anything else
  }

  /// The values loaded from `variable`, which holds the pointer, followed as derived from it
  /// (with whatever else is stored there: following more only finds more accesses). False when
  /// the variable is used otherwise than by loads, stores into it and lifetime markers.
  bool visitLoadsOf(const llvm::AllocaInst &variable) {
    if (!variables_.insert(&variable).second)
      return true;
    for (const llvm::Use &use : variable.uses()) {
      const llvm::User *user = use.getUser();
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(user);
          store && use.getOperandNo() == llvm::StoreInst::getPointerOperandIndex())
        continue;
      if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(user);
          intrinsic && intrinsic->isLifetimeStartOrEnd())
        continue;
      auto *load = llvm::dyn_cast<llvm::LoadInst>(user);
      if (load == nullptr || !visit(*load))
        return false;
    }
    return true;
  }

  bool visitCall(const llvm::CallBase &call, const llvm::Use &use) {
    if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&call)) {
      if (intrinsic->isLifetimeStartOrEnd())
        return true;
      if (auto *set = llvm::dyn_cast<llvm::MemSetInst>(intrinsic)) {
        stores_ = true;
        return &use == &set->getRawDestUse();
      }
      if (auto *transfer = llvm::dyn_cast<llvm::MemTransferInst>(intrinsic)) {
        stores_ = true;
        return &use == &transfer->getRawDestUse();
      }
      return false;
    }
    const llvm::Function *callee = call.getCalledFunction();
    if (callee == nullptr || callee->isDeclaration() || !call.isArgOperand(&use) ||
        call.getArgOperandNo(&use) >= callee->arg_size())
      return false;
    return visit(*callee->getArg(call.getArgOperandNo(&use)));
  }

  llvm::SmallPtrSet<const llvm::Value *, 16> seen_;
  llvm::SmallPtrSet<const llvm::AllocaInst *, 4> variables_;
  bool stores_ = false;
};

} // namespace

bool isOnlyWrittenThrough(const llvm::Argument &pointer) {
  AccessWalk walk;
  return walk.visit(pointer) && walk.stores();
}

} // namespace kiln::compiler
