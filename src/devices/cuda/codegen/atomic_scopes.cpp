//===- atomic_scopes.cpp - PTX scopes and orderings of atomics -----------===//
#include "devices/cuda/codegen/atomic_scopes.hpp"

#include "compiler/llvm/kernel_metadata.hpp"
#include "devices/cuda/codegen/address_space_mapping.hpp"

#include "llvm/CodeGen/AtomicExpandUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

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

/// The compare-exchange that expandAtomicRMWToCmpXchg builds its loop from: on the integer of
/// the value's width (floating-point values are compared by their bits), at `scope` (volatile,
/// the library's mark, at system scope).
void createCmpXchg(SyncScope::ID scope, IRBuilderBase &builder, Value *address, Value *loaded,
                   Value *desired, Align alignment, AtomicOrdering ordering, Value *&success,
                   Value *&newLoaded) {
  Type *type = loaded->getType();
  Type *integer = builder.getIntNTy(type->getPrimitiveSizeInBits());
  bool asBits = type != integer;
  Value *expected = asBits ? builder.CreateBitCast(loaded, integer) : loaded;
  Value *replacement = asBits ? builder.CreateBitCast(desired, integer) : desired;
  AtomicCmpXchgInst *exchange =
      builder.CreateAtomicCmpXchg(address, expected, replacement, alignment, ordering,
                                  AtomicCmpXchgInst::getStrongestFailureOrdering(ordering), scope);
  exchange->setVolatile(scope == SyncScope::System);
  success = builder.CreateExtractValue(exchange, 1);
  Value *old = builder.CreateExtractValue(exchange, 0);
  newLoaded = asBits ? builder.CreateBitCast(old, type) : old;
}

/// `rmw` as a loop of compare-exchanges at `scope`, which carry its order.
void expandToCmpXchgLoop(AtomicRMWInst &rmw, SyncScope::ID scope) {
  expandAtomicRMWToCmpXchg(&rmw, [scope](IRBuilderBase &builder, Value *address, Value *loaded,
                                         Value *desired, Align alignment, AtomicOrdering ordering,
                                         SyncScope::ID, Value *&success, Value *&newLoaded,
                                         Instruction *) {
    createCmpXchg(scope, builder, address, loaded, desired, alignment, ordering, success,
                  newLoaded);
  });
}

/// Whether `rmw` is a float addition that PTX's `atom.add.f32` would get wrong: it flushes
/// subnormal operands and results to zero, which a device with single-precision denormals
/// (CL_FP_DENORM) may do only for programs built with -cl-denorms-are-zero. (`.f64` keeps them.)
bool addsFloatsThatFlush(const AtomicRMWInst &rmw, bool denormsAreZero) {
  bool addition =
      rmw.getOperation() == AtomicRMWInst::FAdd || rmw.getOperation() == AtomicRMWInst::FSub;
  return addition && rmw.getType()->isFloatTy() && !denormsAreZero;
}

/// The fences `ordering` asks for around a relaxed atomic `atomic` of `scope`.
void fenceAround(Instruction &atomic, AtomicOrdering ordering, SyncScope::ID scope) {
  IRBuilder<> builder(&atomic);
  if (releases(ordering))
    builder.CreateFence(ordering == AtomicOrdering::SequentiallyConsistent
                            ? AtomicOrdering::SequentiallyConsistent
                            : AtomicOrdering::Release,
                        scope);
  if (acquires(ordering)) {
    builder.SetInsertPoint(atomic.getNextNode());
    builder.CreateFence(AtomicOrdering::Acquire, scope);
  }
}

/// A device-scope RMW: relaxed, between the fences of its order (or a compare-exchange loop
/// where PTX's instruction would flush float denormals).
void scopeToDevice(AtomicRMWInst &rmw, const Scopes &scopes, bool denormsAreZero) {
  // The library reaches every object through a generic pointer: where it was a __local one, a
  // fence of the block's scope is enough.
  Value *object = rmw.getPointerOperand()->stripPointerCasts();
  bool shared = object->getType()->getPointerAddressSpace() == kNvptxSharedAddressSpace;
  SyncScope::ID scope = shared ? scopes.block : scopes.device;
  if (addsFloatsThatFlush(rmw, denormsAreZero)) {
    expandToCmpXchgLoop(rmw, scope);
    return;
  }
  rmw.setSyncScopeID(scope);
  fenceAround(rmw, rmw.getOrdering(), scope);
  rmw.setOrdering(AtomicOrdering::Monotonic);
}

/// NVVM's system-scope atomic (`atom.sys`) for `rmw`'s operation, where it has one of the same
/// meaning: integer add, and, or, xor, exchange (sub as an add of the negation) and floating
/// add. Not min and max, whose signedness NVVM's names leave open.
Intrinsic::ID systemIntrinsicFor(const AtomicRMWInst &rmw) {
  bool integer = rmw.getType()->isIntegerTy(32) || rmw.getType()->isIntegerTy(64);
  bool floating = rmw.getType()->isFloatTy() || rmw.getType()->isDoubleTy();
  switch (rmw.getOperation()) {
  case AtomicRMWInst::Add:
  case AtomicRMWInst::Sub:
    return integer ? Intrinsic::nvvm_atomic_add_gen_i_sys : Intrinsic::not_intrinsic;
  case AtomicRMWInst::And:
    return integer ? Intrinsic::nvvm_atomic_and_gen_i_sys : Intrinsic::not_intrinsic;
  case AtomicRMWInst::Or:
    return integer ? Intrinsic::nvvm_atomic_or_gen_i_sys : Intrinsic::not_intrinsic;
  case AtomicRMWInst::Xor:
    return integer ? Intrinsic::nvvm_atomic_xor_gen_i_sys : Intrinsic::not_intrinsic;
  case AtomicRMWInst::Xchg:
    return integer ? Intrinsic::nvvm_atomic_exch_gen_i_sys : Intrinsic::not_intrinsic;
  case AtomicRMWInst::FAdd:
    return floating ? Intrinsic::nvvm_atomic_add_gen_f_sys : Intrinsic::not_intrinsic;
  default:
    return Intrinsic::not_intrinsic;
  }
}

/// A system-scope RMW: one `atom.sys` between the system-scope fences of its order where PTX
/// has the operation, else a loop of system-scope compare-exchanges.
void scopeToSystem(AtomicRMWInst &rmw, bool denormsAreZero) {
  Intrinsic::ID intrinsic = systemIntrinsicFor(rmw);
  if (intrinsic == Intrinsic::not_intrinsic || addsFloatsThatFlush(rmw, denormsAreZero)) {
    expandToCmpXchgLoop(rmw, SyncScope::System);
    return;
  }
  IRBuilder<> builder(&rmw);
  Value *pointer = builder.CreateAddrSpaceCast(rmw.getPointerOperand(),
                                               builder.getPtrTy(kNvptxGenericAddressSpace));
  Value *operand = rmw.getValOperand();
  if (rmw.getOperation() == AtomicRMWInst::Sub)
    operand = builder.CreateNeg(operand);
  Value *old =
      builder.CreateIntrinsic(intrinsic, {rmw.getType(), pointer->getType()}, {pointer, operand});
  auto *call = cast<Instruction>(old);
  fenceAround(*call, rmw.getOrdering(), SyncScope::System);
  rmw.replaceAllUsesWith(old);
  rmw.eraseFromParent();
}

} // namespace

void scopeAtomics(Module &module) {
  LLVMContext &context = module.getContext();
  Scopes scopes{context.getOrInsertSyncScopeID("device"), context.getOrInsertSyncScopeID("block")};
  bool denormsAreZero = compiler::denormsAreZero(module);
  std::vector<AtomicRMWInst *> systemRmws, deviceRmws;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function)) {
      if (auto *rmw = dyn_cast<AtomicRMWInst>(&instruction)) {
        (rmw->isVolatile() ? systemRmws : deviceRmws).push_back(rmw);
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
  // Rewritten after the walk, which their expansion into loops would disturb.
  for (AtomicRMWInst *rmw : deviceRmws)
    scopeToDevice(*rmw, scopes, denormsAreZero);
  for (AtomicRMWInst *rmw : systemRmws)
    scopeToSystem(*rmw, denormsAreZero);
}

} // namespace kiln::cuda
