//===- texture_loop_versioning.cpp - One loop per image format choice ---===//
#include "devices/cuda/codegen/texture_loop_versioning.hpp"

#include "compiler/llvm/pass_analyses.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
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

namespace kiln::cuda {
namespace {

/// Each round copies a loop once more, for one more condition: at most four copies.
constexpr unsigned Rounds = 2;
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

/// A branch within `L` (both sides in it) on a condition that does not change in it.
BranchInst *invariantBranch(const Loop &L) {
  for (BasicBlock *Block : L.blocks()) {
    auto *Branch = dyn_cast<BranchInst>(Block->getTerminator());
    if (Branch == nullptr || !Branch->isConditional() || isa<Constant>(Branch->getCondition()))
      continue;
    if (!L.contains(Branch->getSuccessor(0)) || !L.contains(Branch->getSuccessor(1)))
      continue;
    if (L.isLoopInvariant(Branch->getCondition()))
      return Branch;
  }
  return nullptr;
}

/// Copies `L` and runs the original where `Branch`'s condition holds at the loop's entry, the
/// copy where it does not; in each, the branch then always goes one way.
Loop &versionOn(Loop &L, BranchInst &Branch, DominatorTree &DT, LoopInfo &LI) {
  LLVMContext &Context = Branch.getContext();
  simplifyLoop(&L, &DT, &LI, nullptr, nullptr, nullptr, /*PreserveLCSSA=*/false);
  formLCSSA(L, DT, &LI, nullptr);
  Value *Condition = Branch.getCondition();
  BasicBlock *Choice = L.getLoopPreheader();
  BasicBlock *Preheader =
      SplitBlock(Choice, Choice->getTerminator(), &DT, &LI, nullptr, "texture.loop.ph");

  ValueToValueMapTy Map;
  SmallVector<BasicBlock *, 16> CopyBlocks;
  Loop *Copy = cloneLoopWithPreheader(Preheader, Choice, &L, Map, ".other", &LI, &DT, CopyBlocks);
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

  Choice->getTerminator()->eraseFromParent();
  BranchInst::Create(Preheader, Copy->getLoopPreheader(), Condition, Choice);
  cast<BranchInst>(Map[&Branch])->setCondition(ConstantInt::getFalse(Context));
  Branch.setCondition(ConstantInt::getTrue(Context));
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
        BranchInst *Branch = invariantBranch(*L);
        if (Branch == nullptr)
          continue;
        Loop &Copy = versionOn(*L, *Branch, DT, LI);
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
