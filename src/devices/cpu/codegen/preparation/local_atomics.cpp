//===- local_atomics.cpp - Atomics on local memory as plain accesses -----===//
#include "devices/cpu/codegen/preparation/local_atomics.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/preparation/address_space_queries.hpp"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

constexpr const char *kLocalAtomicMark = "kiln.local.atomic";

Value *atomicPointer(Instruction *instruction) {
  if (auto *rmw = dyn_cast<AtomicRMWInst>(instruction))
    return rmw->getPointerOperand();
  if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(instruction))
    return exchange->getPointerOperand();
  return getLoadStorePointerOperand(instruction);
}

SmallVector<Instruction *, 16> atomicsOf(Function &function) {
  SmallVector<Instruction *, 16> atomics;
  for (Instruction &instruction : instructions(function))
    if (instruction.isAtomic() && !isa<FenceInst>(instruction))
      atomics.push_back(&instruction);
  return atomics;
}

} // namespace

void markLocalAtomics(Function &function) {
  for (Instruction *instruction : atomicsOf(function))
    if (Value *pointer = atomicPointer(instruction);
        pointer && namedAddressSpaceOf(pointer) == compiler::spir::kLocalAddressSpace)
      instruction->setMetadata(kLocalAtomicMark, MDNode::get(function.getContext(), {}));
}

void makeLocalAtomicsPlain(Function &function) {
  for (Instruction *instruction : atomicsOf(function)) {
    if (!instruction->getMetadata(kLocalAtomicMark))
      continue;
    instruction->setMetadata(kLocalAtomicMark, nullptr);
    if (auto *rmw = dyn_cast<AtomicRMWInst>(instruction))
      lowerAtomicRMWInst(rmw);
    else if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(instruction))
      lowerAtomicCmpXchgInst(exchange);
    else if (auto *load = dyn_cast<LoadInst>(instruction))
      load->setAtomic(AtomicOrdering::NotAtomic);
    else if (auto *store = dyn_cast<StoreInst>(instruction))
      store->setAtomic(AtomicOrdering::NotAtomic);
  }
}

} // namespace kiln::cpu
