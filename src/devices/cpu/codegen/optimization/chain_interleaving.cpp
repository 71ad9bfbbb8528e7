//===- chain_interleaving.cpp - Jammed work-items' chains side by side ----===//

#include "devices/cpu/codegen/optimization/chain_interleaving.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <algorithm>

using namespace llvm;

namespace kiln::cpu {
namespace {

/// Whether the block may be reordered freely within its dependences: nothing in it touches
/// memory or has other side effects, and it is long enough to hold several chains.
bool isPureArithmetic(const BasicBlock &block) {
  constexpr size_t kFewestInstructions = 64;
  if (block.size() < kFewestInstructions)
    return false;
  for (const Instruction &instruction : block) {
    if (instruction.isTerminator() || isa<PHINode>(instruction))
      continue;
    if (instruction.mayReadOrWriteMemory() || instruction.mayHaveSideEffects() ||
        (isa<CallBase>(instruction) && !isa<IntrinsicInst>(instruction)))
      return false;
  }
  return true;
}

/// Whether the instruction's result comes several cycles after its inputs: the steps of a chain.
/// Integer additions, logic, shifts, negations, selects, conversions between integer widths and
/// shuffles take a cycle or so, and go with the step they feed.
bool isLongLatency(const Instruction &instruction) {
  switch (instruction.getOpcode()) {
  case Instruction::Mul:
  case Instruction::UDiv:
  case Instruction::SDiv:
  case Instruction::URem:
  case Instruction::SRem:
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FMul:
  case Instruction::FDiv:
  case Instruction::FRem:
    return true;
  default:
    return isa<IntrinsicInst>(instruction);
  }
}

bool reorderByLevel(BasicBlock &block) {
  SmallVector<Instruction *, 0> body;
  for (Instruction &instruction : block)
    if (!isa<PHINode>(instruction) && !instruction.isTerminator())
      body.push_back(&instruction);
  // A user's level is at least its operand's, and above it after a long-latency operand, so
  // sorting by level keeps every definition before its users.
  DenseMap<const Instruction *, unsigned> level;
  for (Instruction *instruction : body) {
    unsigned highest = 0;
    for (const Use &operand : instruction->operands())
      if (auto *definition = dyn_cast<Instruction>(operand.get()))
        if (auto found = level.find(definition); found != level.end())
          highest = std::max(highest, found->second + (isLongLatency(*definition) ? 1 : 0));
    level[instruction] = highest;
  }
  SmallVector<Instruction *, 0> ordered(body);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](Instruction *a, Instruction *b) { return level[a] < level[b]; });
  if (ordered == body)
    return false;
  Instruction *terminator = block.getTerminator();
  for (Instruction *instruction : ordered)
    instruction->moveBefore(terminator->getIterator());
  return true;
}

} // namespace

bool interleaveIndependentChains(Function &function) {
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  bool changed = false;
  for (Loop *loop : loops.getLoopsInPreorder())
    if (loop->isInnermost())
      for (BasicBlock *block : loop->blocks())
        if (isPureArithmetic(*block))
          changed |= reorderByLevel(*block);
  return changed;
}

} // namespace kiln::cpu
