//===- work_group_uniform_values.cpp - Values every work-item of a work-group holds alike ===//
#include "devices/cpu/codegen/work_group/work_group_uniform_values.hpp"

#include "devices/cpu/codegen/work_group/computation_copy.hpp"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kiln::cpu {

WorkGroupUniformValues::WorkGroupUniformValues(Function &function, const BasicBlock *prologue,
                                               ArrayRef<const Function *> groupPrimitives)
    : prologue_(prologue), groupPrimitives_(groupPrimitives.begin(), groupPrimitives.end()) {
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  for (Loop *loop : loops.getLoopsInPreorder()) {
    BasicBlock *latch = loop->getLoopLatch();
    if (latch == nullptr)
      continue;
    for (PHINode &phi : loop->getHeader()->phis()) {
      int fromLatch = phi.getBasicBlockIndex(latch);
      if (phi.getNumIncomingValues() == 2 && fromLatch >= 0 &&
          !loop->contains(phi.getIncomingBlock(1 - fromLatch)))
        loopPhis_.insert(&phi);
    }
    if (loop->getHeader()->phis().empty())
      continue;
    loop->getExitingBlocks(exitingOf_[loop->getHeader()]);
  }
  for (bool dropped = true; dropped;) {
    memo_.clear();
    SmallVector<const PHINode *, 8> wrong;
    for (const PHINode *phi : loopPhis_) {
      if (!all_of(phi->incoming_values(),
                  [&](const Use &incoming) { return computeUniform(incoming.get()); }) ||
          !loopExitsAreUniform(phi))
        wrong.push_back(phi);
    }
    for (const PHINode *phi : wrong)
      loopPhis_.erase(phi);
    dropped = !wrong.empty();
  }
  for (Instruction &instruction : instructions(function))
    if (computeUniform(&instruction))
      uniform_.insert(&instruction);
  memo_.clear();
}

bool WorkGroupUniformValues::isUniform(const Value *value) const {
  if (isa<Constant, Argument>(value))
    return true;
  const auto *instruction = dyn_cast<Instruction>(value);
  return instruction != nullptr && uniform_.contains(instruction);
}

bool WorkGroupUniformValues::loopExitsAreUniform(const PHINode *header) {
  for (BasicBlock *block : exitingOf_.lookup(header->getParent())) {
    const Instruction *terminator = block->getTerminator();
    const Value *condition = nullptr;
    if (const auto *branch = dyn_cast<BranchInst>(terminator); branch && branch->isConditional())
      condition = branch->getCondition();
    else if (const auto *choice = dyn_cast<SwitchInst>(terminator))
      condition = choice->getCondition();
    if (condition == nullptr || !computeUniform(condition))
      return false;
  }
  return true;
}

bool WorkGroupUniformValues::computeUniform(const Value *value) {
  if (isa<Constant, Argument>(value))
    return true;
  const auto *instruction = dyn_cast<Instruction>(value);
  if (instruction == nullptr)
    return false;
  if (auto found = memo_.find(value); found != memo_.end())
    return found->second;
  memo_[value] = false; // only phis close a cycle, and they do not ask their operands here
  auto operandsAreUniform = [&] {
    return all_of(instruction->operands(),
                  [&](const Use &operand) { return computeUniform(operand.get()); });
  };
  bool uniform = false;
  if (instruction->getParent() == prologue_) {
    // The prologue runs once per work-group; only its private variables are one per work-item.
    uniform = !isa<AllocaInst>(instruction) && operandsAreUniform();
  } else if (const auto *phi = dyn_cast<PHINode>(instruction)) {
    uniform = loopPhis_.contains(phi);
  } else if (const auto *call = dyn_cast<CallInst>(instruction)) {
    // A group primitive, or an intrinsic that computes from its arguments alone (a vector
    // reduction of a uniform mask).
    bool fromArgumentsAlone =
        (call->getCalledFunction() != nullptr &&
         groupPrimitives_.contains(call->getCalledFunction())) ||
        (isa<IntrinsicInst>(call) && call->doesNotAccessMemory() && !call->isConvergent());
    uniform = fromArgumentsAlone &&
              all_of(call->args(), [&](const Use &argument) { return computeUniform(argument); });
  } else {
    // A division traps alike in every work-item: only a copy of one needs more care.
    bool fromOperandsAlone = isPureStep(*instruction) || isa<BinaryOperator>(instruction);
    uniform = fromOperandsAlone && operandsAreUniform();
  }
  memo_[value] = uniform;
  return uniform;
}

} // namespace kiln::cpu
