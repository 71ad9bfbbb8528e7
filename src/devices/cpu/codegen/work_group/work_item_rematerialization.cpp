//===- work_item_rematerialization.cpp - Recomputing local-id values after barriers ===//
#include "devices/cpu/codegen/work_group/work_item_rematerialization.hpp"

#include "devices/cpu/codegen/work_group/computation_copy.hpp"

#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// The most instructions one use's copy may take: beyond, a load from the slot is cheaper.
constexpr unsigned kMostRecomputedInstructions = 8;

class Rematerializer {
public:
  Rematerializer(const BasicBlock *prologue, const Function *localId,
                 function_ref<bool(const Value &)> isWorkGroupUniform)
      : prologue_(prologue), localId_(localId), isWorkGroupUniform_(isWorkGroupUniform) {}

  /// Whether `value` can be recomputed anywhere in the body within `budget` instructions.
  bool isRecomputable(const Value *value, unsigned &budget) const {
    if (isAvailableEverywhere(value))
      return true;
    const auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr || budget == 0)
      return false;
    --budget;
    if (const auto *call = dyn_cast<CallInst>(instruction))
      return localId_ != nullptr && call->getCalledFunction() == localId_ &&
             isa<Constant>(call->getArgOperand(0));
    return isPureStep(*instruction) && all_of(instruction->operands(), [&](const Use &operand) {
             return isRecomputable(operand.get(), budget);
           });
  }

  /// A copy of `value`'s computation before `insertionPoint`.
  Value *recompute(Value *value, Instruction *insertionPoint) const {
    return copyComputation(value, insertionPoint,
                           [&](const Value *step) { return !isAvailableEverywhere(step); });
  }

private:
  /// Constants, arguments and the prologue's values (the prologue runs before every region), and
  /// the work-group's values, which every region reads from their one copy.
  bool isAvailableEverywhere(const Value *value) const {
    if (isa<Constant, Argument>(value))
      return true;
    const auto *instruction = dyn_cast<Instruction>(value);
    return instruction != nullptr &&
           (instruction->getParent() == prologue_ || isWorkGroupUniform_(*instruction));
  }

  const BasicBlock *prologue_;
  const Function *localId_;
  function_ref<bool(const Value &)> isWorkGroupUniform_;
};

} // namespace

void rematerializeWorkItemValues(ArrayRef<BasicBlock *> body, const BasicBlock *prologue,
                                 const Function *localId,
                                 function_ref<bool(Instruction &)> isLiveAcrossBarrier,
                                 function_ref<bool(const Value &)> isWorkGroupUniform) {
  Rematerializer rematerializer(prologue, localId, isWorkGroupUniform);
  SmallVector<Instruction *, 32> recomputable;
  for (BasicBlock *block : body)
    for (Instruction &instruction : *block) {
      unsigned budget = kMostRecomputedInstructions;
      if (!instruction.use_empty() && isLiveAcrossBarrier(instruction) &&
          rematerializer.isRecomputable(&instruction, budget))
        recomputable.push_back(&instruction);
    }
  for (Instruction *instruction : recomputable) {
    SmallVector<Use *, 8> uses;
    for (Use &use : instruction->uses())
      uses.push_back(&use);
    for (Use *use : uses) {
      Instruction *insertionPoint = insertionPointFor(*use);
      if (insertionPoint->getParent() == instruction->getParent())
        continue; // in the same block, no barrier comes between
      use->set(rematerializer.recompute(instruction, insertionPoint));
    }
  }
}

} // namespace kiln::cpu
