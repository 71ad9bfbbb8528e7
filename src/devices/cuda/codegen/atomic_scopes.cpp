//===- atomic_scopes.cpp - PTX scopes and orderings of atomics -----------===//
#include "devices/cuda/codegen/atomic_scopes.hpp"

#include "devices/cuda/codegen/address_space_mapping.hpp"

#include "llvm/CodeGen/AtomicExpandUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cuda {
namespace {

constexpr unsigned kNvptxSharedAddressSpace = 3;

/// The NVPTX scope names an atomic of the device may use.
struct Scopes {
  SyncScope::ID device, block;
};

/// Whether an RMW of `ordering` must be preceded (release) or followed (acquire) by a fence.
bool releases(AtomicOrdering ordering) {
  return ordering == AtomicOrdering::Release || ordering == AtomicOrdering::AcquireRelease ||
         ordering == AtomicOrdering::SequentiallyConsistent;
}
bool acquires(AtomicOrdering ordering) {
  return ordering == AtomicOrdering::Acquire || ordering == AtomicOrdering::AcquireRelease ||
         ordering == AtomicOrdering::SequentiallyConsistent;
}

/// A device-scope RMW: relaxed, between the fences of its order.
void fenceAround(AtomicRMWInst &rmw, const Scopes &scopes) {
  // The library reaches every object through a generic pointer: where it was a __local one, a
  // fence of the block's scope is enough.
  Value *object = rmw.getPointerOperand()->stripPointerCasts();
  bool shared = object->getType()->getPointerAddressSpace() == kNvptxSharedAddressSpace;
  SyncScope::ID scope = shared ? scopes.block : scopes.device;
  AtomicOrdering ordering = rmw.getOrdering();
  rmw.setSyncScopeID(scope);
  if (ordering == AtomicOrdering::Monotonic)
    return;
  IRBuilder<> builder(&rmw);
  if (releases(ordering))
    builder.CreateFence(ordering == AtomicOrdering::SequentiallyConsistent
                            ? AtomicOrdering::SequentiallyConsistent
                            : AtomicOrdering::Release,
                        scope);
  if (acquires(ordering)) {
    builder.SetInsertPoint(rmw.getNextNode());
    builder.CreateFence(AtomicOrdering::Acquire, scope);
  }
  rmw.setOrdering(AtomicOrdering::Monotonic);
}

/// The compare-exchange that expandAtomicRMWToCmpXchg builds its loop from: on the integer of
/// the value's width (floating-point values are compared by their bits), at system scope.
void createSystemCmpXchg(IRBuilderBase &builder, Value *address, Value *loaded, Value *desired,
                         Align alignment, AtomicOrdering ordering, SyncScope::ID scope,
                         Value *&success, Value *&newLoaded, Instruction *metadataSource) {
  Type *type = loaded->getType();
  Type *integer = builder.getIntNTy(type->getPrimitiveSizeInBits());
  bool asBits = type != integer;
  Value *expected = asBits ? builder.CreateBitCast(loaded, integer) : loaded;
  Value *replacement = asBits ? builder.CreateBitCast(desired, integer) : desired;
  AtomicCmpXchgInst *exchange = builder.CreateAtomicCmpXchg(
      address, expected, replacement, alignment, ordering,
      AtomicCmpXchgInst::getStrongestFailureOrdering(ordering), SyncScope::System);
  exchange->setVolatile(true);
  success = builder.CreateExtractValue(exchange, 1);
  Value *old = builder.CreateExtractValue(exchange, 0);
  newLoaded = asBits ? builder.CreateBitCast(old, type) : old;
}

} // namespace

void scopeAtomics(Module &module) {
  LLVMContext &context = module.getContext();
  Scopes scopes{context.getOrInsertSyncScopeID("device"), context.getOrInsertSyncScopeID("block")};
  std::vector<AtomicRMWInst *> systemRmws;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function)) {
      if (auto *rmw = dyn_cast<AtomicRMWInst>(&instruction)) {
        if (rmw->isVolatile())
          systemRmws.push_back(rmw);
        else
          fenceAround(*rmw, scopes);
      } else if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(&instruction)) {
        if (!exchange->isVolatile())
          exchange->setSyncScopeID(scopes.device);
      } else if (auto *load = dyn_cast<LoadInst>(&instruction)) {
        if (load->isAtomic() && !load->isVolatile())
          load->setSyncScopeID(scopes.device);
      } else if (auto *store = dyn_cast<StoreInst>(&instruction)) {
        if (store->isAtomic() && !store->isVolatile())
          store->setSyncScopeID(scopes.device);
      }
    }
  for (AtomicRMWInst *rmw : systemRmws)
    expandAtomicRMWToCmpXchg(rmw, createSystemCmpXchg);
}

} // namespace kiln::cuda
