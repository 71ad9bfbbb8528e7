//===- chain_interleaving.cpp - Jammed work-items' chains side by side ----===//

#include "devices/cpu/codegen/chain_interleaving.hpp"

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

bool reorderByDepth(BasicBlock &block) {
  SmallVector<Instruction *, 0> body;
  for (Instruction &instruction : block)
    if (!isa<PHINode>(instruction) && !instruction.isTerminator())
      body.push_back(&instruction);
  DenseMap<const Instruction *, unsigned> depth;
  for (Instruction *instruction : body) {
    unsigned deepest = 0;
    for (const Use &operand : instruction->operands())
      if (auto *definition = dyn_cast<Instruction>(operand.get()))
        if (auto found = depth.find(definition); found != depth.end())
          deepest = std::max(deepest, found->second + 1);
    depth[instruction] = deepest;
  }
  SmallVector<Instruction *, 0> ordered(body);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](Instruction *a, Instruction *b) { return depth[a] < depth[b]; });
  if (ordered == body)
    return false;
  // A definition's depth is below every in-block user's, so this order keeps the dependences.
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
          changed |= reorderByDepth(*block);
  return changed;
}

} // namespace kiln::cpu
