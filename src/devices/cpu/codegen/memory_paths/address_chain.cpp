//===- address_chain.cpp - An address as a function of one loop-varying value ===//
#include "devices/cpu/codegen/memory_paths/address_chain.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"

#include <functional>

using namespace llvm;

namespace kiln::cpu {

std::optional<AddressChain> addressChainOf(Value *address, const Loop &loop,
                                           function_ref<bool(Instruction &)> isSource) {
  AddressChain found;
  SmallPtrSet<Instruction *, 16> visited;
  // Depth-first, emitting an instruction after its operands.
  std::function<bool(Value *)> visit = [&](Value *value) -> bool {
    if (loop.isLoopInvariant(value))
      return true;
    auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr)
      return false;
    if (!visited.insert(instruction).second)
      return true;
    if (isSource(*instruction)) {
      if (found.source != nullptr)
        return false;
      found.source = instruction;
      return true;
    }
    // No division: the copy computes on a value the loop may never see (a zero or
    // INT_MIN / -1 would trap where the original never divides).
    if (!isa<GetElementPtrInst, CastInst, BinaryOperator>(instruction) ||
        instruction->isIntDivRem() || found.chain.size() == kMaxAddressChainLength)
      return false;
    for (Value *operand : instruction->operands())
      if (!visit(operand))
        return false;
    found.chain.push_back(instruction);
    return true;
  };
  if (!visit(address) || found.source == nullptr)
    return std::nullopt;
  return found;
}

Value *copyAddressChain(const AddressChain &computed, Value *address, Value *replacement,
                        IRBuilder<> &builder) {
  DenseMap<Value *, Value *> copies{{computed.source, replacement}};
  for (Instruction *original : computed.chain) {
    Instruction *copy = original->clone();
    for (Use &operand : copy->operands())
      if (auto it = copies.find(operand.get()); it != copies.end())
        operand.set(it->second);
    if (auto *element = dyn_cast<GetElementPtrInst>(copy))
      element->setNoWrapFlags(GEPNoWrapFlags::none());
    else
      copy->dropPoisonGeneratingFlags();
    builder.Insert(copy, original->getName() + ".ahead");
    copies[original] = copy;
  }
  return copies.lookup(address);
}

void prefetchForReading(Value *address, int locality, IRBuilder<> &builder) {
  builder.CreateIntrinsic(Intrinsic::prefetch, {address->getType()},
                          {address, builder.getInt32(0) /*read*/, builder.getInt32(locality),
                           builder.getInt32(1) /*data*/});
}

} // namespace kiln::cpu
