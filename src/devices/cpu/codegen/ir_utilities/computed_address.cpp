//===- computed_address.cpp - Addresses that arithmetic alone computes ----===//
#include "devices/cpu/codegen/ir_utilities/computed_address.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// How many instructions the walk visits before it gives up.
constexpr unsigned kMaxVisited = 64;

bool isPureArithmetic(const Instruction &instruction) {
  if (isa<BinaryOperator>(instruction) || isa<CastInst>(instruction) ||
      isa<GetElementPtrInst>(instruction) || isa<SelectInst>(instruction) ||
      isa<CmpInst>(instruction) || isa<PHINode>(instruction) || isa<FreezeInst>(instruction) ||
      isa<ShuffleVectorInst>(instruction) || isa<InsertElementInst>(instruction) ||
      isa<ExtractElementInst>(instruction) || isa<UnaryOperator>(instruction))
    return true;
  if (const auto *intrinsic = dyn_cast<IntrinsicInst>(&instruction))
    return !intrinsic->mayReadOrWriteMemory();
  return false;
}

} // namespace

bool isComputedWithoutLoads(const Value *address, function_ref<bool(const Value *)> follow) {
  SmallVector<const Value *, 16> pending{address};
  SmallPtrSet<const Value *, 32> visited;
  while (!pending.empty()) {
    const Value *value = pending.pop_back_val();
    if (!visited.insert(value).second)
      continue;
    if (visited.size() > kMaxVisited)
      return false;
    const auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr)
      continue; // arguments and constants
    if (!isPureArithmetic(*instruction))
      return false;
    for (const Use &operand : instruction->operands())
      if (follow(operand.get()))
        pending.push_back(operand.get());
  }
  return true;
}

} // namespace kiln::cpu
