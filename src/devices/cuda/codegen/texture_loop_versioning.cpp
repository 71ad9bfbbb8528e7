//===- texture_loop_versioning.cpp - One loop per image format choice ---===//
#include "devices/cuda/codegen/texture_loop_versioning.hpp"

#include "compiler/llvm/pass_analyses.hpp"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace kiln::cuda {
namespace {

/// Each round copies a loop once more, for one more condition: at most eight copies (a read's
/// texture-or-software choice, an sRGB order, a channel order other than RGBA).
constexpr unsigned Rounds = 3;
/// Larger loops have enough independent work, and copies of them cost compile time.
constexpr unsigned MaxLoopInstructions = 256;

bool isTextureFetch(const Instruction &I) {
  const auto *Call = dyn_cast<CallBase>(&I);
  const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
  return Callee != nullptr && Callee->getName().starts_with("llvm.nvvm.tex");
}

/// Whether `L` is a loop worth copying: innermost, small, fetching from textures, and free of
/// convergent operations, which the work-items of a warp must reach together (they may run
/// different copies).
bool isSmallTextureLoop(const Loop &L) {
  if (!L.isInnermost())
    return false;
  unsigned Count = 0;
  bool Fetches = false;
  for (const BasicBlock *Block : L.blocks())
    for (const Instruction &I : *Block) {
      if (const auto *Call = dyn_cast<CallBase>(&I); Call && Call->isConvergent())
        return false;
      Fetches |= isTextureFetch(I);
      if (++Count > MaxLoopInstructions)
        return false;
    }
  return Fetches;
}

/// A branch within `L` (both sides in it) on a condition that does not change in it, or a
/// switch (every case in it) on such a value: an image's channel order, which the optimizer turns
/// into a switch where the library tests for a few orders.
Instruction *invariantChoice(const Loop &L) {
  for (BasicBlock *Block : L.blocks()) {
    Instruction *Terminator = Block->getTerminator();
    if (auto *Branch = dyn_cast<BranchInst>(Terminator)) {
      if (!Branch->isConditional() || isa<Constant>(Branch->getCondition()))
        continue;
      if (!L.contains(Branch->getSuccessor(0)) || !L.contains(Branch->getSuccessor(1)))
        continue;
      if (L.isLoopInvariant(Branch->getCondition()))
        return Branch;
    } else if (auto *Switch = dyn_cast<SwitchInst>(Terminator)) {
      if (Switch->getNumCases() == 0 || isa<Constant>(Switch->getCondition()) ||
          !L.isLoopInvariant(Switch->getCondition()))
        continue;
      if (all_of(successors(Block), [&](BasicBlock *To) { return L.contains(To); }))
        return Switch;
    }
  }
  return nullptr;
}

/// What `V` is where `Known` holds `Value`: a constant when `V` is `Known`, a constant, or (to a
/// small depth) an instruction computed from those alone; null otherwise.
Constant *valueWhere(Value &V, Value &Known, Constant &Value, unsigned Depth = 0) {
  if (&V == &Known)
    return &Value;
  if (auto *C = dyn_cast<Constant>(&V))
    return C;
  auto *I = dyn_cast<Instruction>(&V);
  if (I == nullptr || Depth == 3 || I->mayHaveSideEffects() || I->mayReadFromMemory() ||
      isa<PHINode, CallBase>(I))
    return nullptr;
  SmallVector<Constant *, 4> Operands;
  for (Use &Operand : I->operands()) {
    Constant *Folded = valueWhere(*Operand.get(), Known, Value, Depth + 1);
    if (Folded == nullptr)
      return nullptr;
    Operands.push_back(Folded);
  }
  return ConstantFoldInstOperands(I, Operands, I->getDataLayout());
}

/// In `L`, where `Known` always holds `Value`: replaces the uses of `Known`, and of values
/// computed from it before the loop (LICM took an sRGB order's test out of the loop before the
/// channel order's), by what they are then, so that the tests they decide fold.
void foldInLoop(Loop &L, Value &Known, Constant &Value) {
  SmallPtrSet<Instruction *, 16> Outside;
  for (BasicBlock *Block : L.blocks())
    for (Instruction &I : *Block)
      for (Use &Operand : I.operands())
        if (auto *Def = dyn_cast<Instruction>(Operand.get()); Def && !L.contains(Def))
          Outside.insert(Def);
  auto InLoop = [&](Use &U) {
    auto *User = dyn_cast<Instruction>(U.getUser());
    return User != nullptr && L.contains(User);
  };
  for (Instruction *Def : Outside)
    if (Constant *Folded = valueWhere(*Def, Known, Value))
      Def->replaceUsesWithIf(Folded, InLoop);
  if (!isa<Constant>(Known))
    Known.replaceUsesWithIf(&Value, InLoop);
}

/// Copies `L` and runs the original where `Choice`'s first way holds at the loop's entry (a
/// branch's condition, a switch's first case), the copy where it does not; in the original the
/// choice then always goes that way, in the copy never.
Loop &versionOn(Loop &L, Instruction &Choice, DominatorTree &DT, LoopInfo &LI) {
  LLVMContext &Context = Choice.getContext();
  simplifyLoop(&L, &DT, &LI, nullptr, nullptr, nullptr, /*PreserveLCSSA=*/false);
  formLCSSA(L, DT, &LI, nullptr);
  BasicBlock *Entry = L.getLoopPreheader();
  BasicBlock *Preheader =
      SplitBlock(Entry, Entry->getTerminator(), &DT, &LI, nullptr, "texture.loop.ph");
  auto *Switch = dyn_cast<SwitchInst>(&Choice);
  Value *Condition = nullptr;
  ConstantInt *FirstCase = nullptr;
  if (Switch != nullptr) {
    FirstCase = Switch->case_begin()->getCaseValue();
    Condition = new ICmpInst(Entry->getTerminator()->getIterator(), ICmpInst::ICMP_EQ,
                             Switch->getCondition(), FirstCase, "texture.loop.case");
  } else {
    Condition = cast<BranchInst>(Choice).getCondition();
  }

  ValueToValueMapTy Map;
  SmallVector<BasicBlock *, 16> CopyBlocks;
  Loop *Copy = cloneLoopWithPreheader(Preheader, Entry, &L, Map, ".other", &LI, &DT, CopyBlocks);
  remapInstructionsInBlocks(CopyBlocks, Map);

  // The exits (dedicated, and in LCSSA form the only users of the loop's values) now come from
  // either loop.
  SmallVector<BasicBlock *, 4> Exits;
  L.getUniqueExitBlocks(Exits);
  for (BasicBlock *Exit : Exits)
    for (PHINode &Phi : Exit->phis())
      for (unsigned I = 0, E = Phi.getNumIncomingValues(); I != E; ++I) {
        BasicBlock *From = Phi.getIncomingBlock(I);
        if (!L.contains(From))
          continue;
        Value *Incoming = Phi.getIncomingValue(I);
        auto Mapped = Map.find(Incoming);
        Phi.addIncoming(Mapped != Map.end() ? static_cast<Value *>(Mapped->second) : Incoming,
                        cast<BasicBlock>(Map[From]));
      }

  Entry->getTerminator()->eraseFromParent();
  BranchInst::Create(Preheader, Copy->getLoopPreheader(), Condition, Entry);
  if (Switch != nullptr) {
    // The original takes the first case (the clean-up folds the switch on a constant); the copy
    // loses it, and a later round may version it on the next.
    auto *CopySwitch = cast<SwitchInst>(Map[Switch]);
    auto Case = CopySwitch->findCaseValue(FirstCase);
    Case->getCaseSuccessor()->removePredecessor(CopySwitch->getParent(),
                                                /*KeepOneInputPHIs=*/true);
    CopySwitch->removeCase(Case);
    foldInLoop(L, *Switch->getCondition(), *FirstCase);
  } else {
    auto &Branch = cast<BranchInst>(Choice);
    // A test of a value for equality with a constant (what is left of a switch of one case)
    // tells the value in the copy where it holds.
    Value *Tested = nullptr;
    ConstantInt *Constant = nullptr;
    CmpPredicate Predicate;
    bool Equality = match(Condition, m_ICmp(Predicate, m_Value(Tested), m_ConstantInt(Constant))) &&
                    ICmpInst::isEquality(Predicate);
    auto *CopyBranch = cast<BranchInst>(Map[&Branch]);
    CopyBranch->setCondition(ConstantInt::getFalse(Context));
    Branch.setCondition(ConstantInt::getTrue(Context));
    if (Equality)
      foldInLoop(Predicate == ICmpInst::ICMP_EQ ? L : *Copy, *Tested, *Constant);
  }
  return *Copy;
}

/// Versions each small texture loop of `F` on one invariant branch (each copy once a run: the
/// next run sees what the clean-up made of them).
class VersionTextureLoopsPass : public PassInfoMixin<VersionTextureLoopsPass> {
public:
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    SmallPtrSet<const BasicBlock *, 8> Versioned; // the headers of both copies
    for (bool Again = true; Again;) {
      Again = false;
      DominatorTree DT(F);
      LoopInfo LI(DT);
      for (Loop *L : LI.getLoopsInPreorder()) {
        if (Versioned.contains(L->getHeader()) || !isSmallTextureLoop(*L))
          continue;
        Instruction *Choice = invariantChoice(*L);
        if (Choice == nullptr)
          continue;
        Loop &Copy = versionOn(*L, *Choice, DT, LI);
        Versioned.insert(L->getHeader());
        Versioned.insert(Copy.getHeader());
        Again = true;
        break; // the dominator tree no longer holds at the exits: analyse again
      }
    }
    return Versioned.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

} // namespace

void versionTextureLoops(Module &module, TargetMachine &machine) {
  FunctionPassManager functions;
  for (unsigned Round = 0; Round < Rounds; ++Round) {
    functions.addPass(VersionTextureLoopsPass());
    // Drop the decided branches and the paths they no longer reach; then what only one side
    // needed (an image's channel order, loaded where the texture is read) leaves the loop,
    // and the next round sees the conditions that depend on it as invariant.
    functions.addPass(SimplifyCFGPass());
    functions.addPass(InstCombinePass());
    functions.addPass(
        createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), /*UseMemorySSA=*/true));
    functions.addPass(EarlyCSEPass());
    functions.addPass(SimplifyCFGPass());
  }
  PassBuilder builder(&machine);
  compiler::runOnEveryFunction(module, builder, std::move(functions));
}

} // namespace kiln::cuda
