//===- private_atomics.cpp - Atomics on private memory -------------------===//
#include "devices/cuda/codegen/private_atomics.hpp"

#include "devices/cuda/codegen/address_space_mapping.hpp"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"

using namespace llvm;

namespace kiln::cuda {
namespace {

enum class Origin { Private, Shared, Unknown };

Value *atomicPointer(Instruction &instruction) {
  if (auto *rmw = dyn_cast<AtomicRMWInst>(&instruction))
    return rmw->getPointerOperand();
  if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(&instruction))
    return exchange->getPointerOperand();
  if (auto *load = dyn_cast<LoadInst>(&instruction); load && load->isAtomic())
    return load->getPointerOperand();
  if (auto *store = dyn_cast<StoreInst>(&instruction); store && store->isAtomic())
    return store->getPointerOperand();
  return nullptr;
}

/// Where a generic pointer points, as far as its definition tells.
Origin originOf(Value *pointer) {
  const Value *object = getUnderlyingObject(pointer, /*MaxLookup=*/0);
  if (isa<AllocaInst>(object))
    return Origin::Private;
  if (auto *cast = dyn_cast<AddrSpaceCastOperator>(object))
    if (cast->getSrcAddressSpace() != kNvptxGenericAddressSpace)
      return Origin::Shared; // global or local memory: atomics work there
  if (isa<GlobalValue>(object))
    return Origin::Shared;
  return Origin::Unknown;
}

/// The atomic as the plain accesses it amounts to for one work-item.
void makePlain(Instruction &atomic) {
  if (auto *rmw = dyn_cast<AtomicRMWInst>(&atomic))
    lowerAtomicRMWInst(rmw);
  else if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(&atomic))
    lowerAtomicCmpXchgInst(exchange);
  else if (auto *load = dyn_cast<LoadInst>(&atomic))
    load->setAtomic(AtomicOrdering::NotAtomic);
  else if (auto *store = dyn_cast<StoreInst>(&atomic))
    store->setAtomic(AtomicOrdering::NotAtomic);
}

/// `if (isspacep.local(pointer)) plain else atomic`, merging the results.
void chooseAtRunTime(Instruction &atomic, Value *pointer) {
  IRBuilder<> builder(&atomic);
  Value *isPrivate =
      builder.CreateIntrinsic(builder.getInt1Ty(), Intrinsic::nvvm_isspacep_local, {pointer});
  Instruction *privateBranch = nullptr;
  Instruction *sharedBranch = nullptr;
  SplitBlockAndInsertIfThenElse(isPrivate, atomic.getIterator(), &privateBranch, &sharedBranch);
  Instruction *plain = atomic.clone();
  plain->insertBefore(privateBranch->getIterator());
  atomic.moveBefore(sharedBranch->getIterator());
  if (!atomic.getType()->isVoidTy()) {
    builder.SetInsertPoint(privateBranch->getSuccessor(0)->getFirstNonPHIIt());
    PHINode *merged = builder.CreatePHI(atomic.getType(), 2);
    atomic.replaceAllUsesWith(merged);
    merged->addIncoming(plain, plain->getParent());
    merged->addIncoming(&atomic, atomic.getParent());
  }
  makePlain(*plain);
}

} // namespace

void lowerPrivateAtomics(Module &module) {
  SmallVector<std::pair<Instruction *, Value *>, 16> generic;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function))
      if (Value *pointer = atomicPointer(instruction))
        if (pointer->getType()->getPointerAddressSpace() == kNvptxGenericAddressSpace)
          generic.emplace_back(&instruction, pointer);
  for (auto [atomic, pointer] : generic) {
    switch (originOf(pointer)) {
    case Origin::Private:
      makePlain(*atomic);
      break;
    case Origin::Unknown:
      chooseAtRunTime(*atomic, pointer);
      break;
    case Origin::Shared:
      break;
    }
  }
}

} // namespace kiln::cuda
