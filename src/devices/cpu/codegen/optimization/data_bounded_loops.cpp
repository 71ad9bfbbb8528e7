//===- data_bounded_loops.cpp - No run-time unrolling of loops bounded by data ===//
#include "devices/cpu/codegen/optimization/data_bounded_loops.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// How many instructions the walk back from an exit test visits before it gives up.
constexpr unsigned kMaxVisited = 64;

/// Whether `load` reads a kernel's buffers rather than the work-group function's own
/// argument block (kernel arguments are loads too, from the private address space).
bool readsBufferMemory(const LoadInst &load) {
  unsigned space = load.getPointerAddressSpace();
  return space == compiler::spir::kGlobalAddressSpace ||
         space == compiler::spir::kConstantAddressSpace ||
         space == compiler::spir::kLocalAddressSpace;
}

/// Whether `value` is computed, through any chain of instructions, from a buffer load.
bool dependsOnBufferLoad(Value *value) {
  SmallVector<Value *, 16> pending{value};
  SmallPtrSet<Value *, 32> visited;
  while (!pending.empty()) {
    auto *instruction = dyn_cast<Instruction>(pending.pop_back_val());
    if (instruction == nullptr || !visited.insert(instruction).second)
      continue;
    if (visited.size() > kMaxVisited)
      return false;
    if (auto *load = dyn_cast<LoadInst>(instruction)) {
      if (readsBufferMemory(*load))
        return true;
      continue; // an argument: the address is the argument block's
    }
    for (Use &operand : instruction->operands())
      pending.push_back(operand.get());
  }
  return false;
}

bool exitDependsOnBufferLoad(const Loop &loop) {
  SmallVector<BasicBlock *, 4> exiting;
  loop.getExitingBlocks(exiting);
  for (BasicBlock *block : exiting) {
    auto *branch = dyn_cast<BranchInst>(block->getTerminator());
    if (branch != nullptr && branch->isConditional() && dependsOnBufferLoad(branch->getCondition()))
      return true;
  }
  return false;
}

} // namespace

unsigned keepDataBoundedLoopsRolled(Function &function) {
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  LLVMContext &context = function.getContext();
  MDNode *noRuntimeUnrolling =
      MDNode::get(context, MDString::get(context, "llvm.loop.unroll.runtime.disable"));
  unsigned marked = 0;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (loop->getLoopLatch() == nullptr || !exitDependsOnBufferLoad(*loop))
      continue;
    loop->setLoopID(
        makePostTransformationMetadata(context, loop->getLoopID(), {}, {noRuntimeUnrolling}));
    ++marked;
  }
  return marked;
}

} // namespace kiln::cpu
