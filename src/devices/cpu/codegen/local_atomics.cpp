//===- local_atomics.cpp - Atomics on local memory as plain accesses -----===//
#include "devices/cpu/codegen/local_atomics.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/address_space_queries.hpp"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

bool isLocal(Value *pointer) {
  return namedAddressSpaceOf(pointer) == compiler::spir::kLocalAddressSpace;
}

} // namespace

void makeLocalAtomicsPlain(Function &function) {
  SmallVector<Instruction *, 16> atomics;
  for (Instruction &instruction : instructions(function))
    if (instruction.isAtomic() && !isa<FenceInst>(instruction))
      atomics.push_back(&instruction);
  for (Instruction *instruction : atomics) {
    if (auto *rmw = dyn_cast<AtomicRMWInst>(instruction)) {
      if (isLocal(rmw->getPointerOperand()))
        lowerAtomicRMWInst(rmw);
    } else if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(instruction)) {
      if (isLocal(exchange->getPointerOperand()))
        lowerAtomicCmpXchgInst(exchange);
    } else if (auto *load = dyn_cast<LoadInst>(instruction)) {
      if (isLocal(load->getPointerOperand()))
        load->setAtomic(AtomicOrdering::NotAtomic);
    } else if (auto *store = dyn_cast<StoreInst>(instruction)) {
      if (isLocal(store->getPointerOperand()))
        store->setAtomic(AtomicOrdering::NotAtomic);
    }
  }
}

} // namespace kiln::cpu
