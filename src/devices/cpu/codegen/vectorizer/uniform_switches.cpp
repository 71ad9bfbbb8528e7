//===- uniform_switches.cpp - Switches on uniform values as branch chains -===//
#include "devices/cpu/codegen/vectorizer/uniform_switches.hpp"

#include "llvm/ADT/MapVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

/// Makes `from` the one incoming block of `target`'s phis for the edges that came from `was`
/// (a switch has one phi entry per case edge; the test block has one edge).
void takeOverPhiEdges(BasicBlock *target, BasicBlock *was, BasicBlock *from) {
  for (PHINode &phi : target->phis()) {
    bool kept = false;
    for (unsigned index = phi.getNumIncomingValues(); index-- > 0;) {
      if (phi.getIncomingBlock(index) != was)
        continue;
      if (kept) {
        phi.removeIncomingValue(index, /*DeletePHIIfEmpty=*/false);
      } else {
        phi.setIncomingBlock(index, from);
        kept = true;
      }
    }
  }
}

void lowerToChain(SwitchInst &switchInst) {
  BasicBlock *block = switchInst.getParent();
  BasicBlock *defaultTarget = switchInst.getDefaultDest();
  Value *condition = switchInst.getCondition();
  // The case values of each case block, in the order of the cases; values that lead to the
  // default block need no test.
  MapVector<BasicBlock *, SmallVector<ConstantInt *, 4>> cases;
  for (const auto &caseHandle : switchInst.cases())
    if (caseHandle.getCaseSuccessor() != defaultTarget)
      cases[caseHandle.getCaseSuccessor()].push_back(caseHandle.getCaseValue());

  LLVMContext &context = block->getContext();
  Function *function = block->getParent();
  BasicBlock *test = block;
  IRBuilder<> builder(&switchInst);
  for (auto &[target, values] : cases) {
    Value *matches = nullptr;
    for (ConstantInt *value : values) {
      Value *equal = builder.CreateICmpEQ(condition, value, "switch.case");
      matches = matches ? builder.CreateOr(matches, equal) : equal;
    }
    auto *next = BasicBlock::Create(context, "switch.next", function, target);
    builder.CreateCondBr(matches, target, next);
    takeOverPhiEdges(target, block, test);
    test = next;
    builder.SetInsertPoint(next);
  }
  builder.CreateBr(defaultTarget);
  takeOverPhiEdges(defaultTarget, block, test);
  switchInst.eraseFromParent();
}

} // namespace

void lowerUniformSwitches(Function &function, const ShapeAnalysis &shapes) {
  SmallVector<SwitchInst *, 8> uniform;
  for (BasicBlock &block : function)
    if (auto *switchInst = dyn_cast<SwitchInst>(block.getTerminator()))
      if (shapes.shape(switchInst->getCondition()).isUniform())
        uniform.push_back(switchInst);
  for (SwitchInst *switchInst : uniform)
    lowerToChain(*switchInst);
}

} // namespace kiln::cpu::vectorizer
