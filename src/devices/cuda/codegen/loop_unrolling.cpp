//===- loop_unrolling.cpp - Unrolling counted loops for the GPU ----------===//
#include "devices/cuda/codegen/loop_unrolling.hpp"

#include "compiler/llvm/pass_analyses.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/UnrollLoop.h"

using namespace llvm;

namespace kiln::cuda {
namespace {

constexpr unsigned UnrollFactor = 4;
/// Loops of fewer (known) trips are left to the full unrolling of the optimization pipeline.
constexpr unsigned MinTripCount = 2 * UnrollFactor;
/// Larger bodies have enough independent work already, and would bloat the code.
constexpr unsigned MaxBodyInstructions = 96;

/// Whether `L` is small, straight enough to be worth unrolling, and free of calls (a barrier or
/// any other convergent operation is better left alone).
bool isSmallCallFreeLoop(const Loop &L) {
  unsigned Count = 0;
  for (const BasicBlock *Block : L.blocks())
    for (const Instruction &I : *Block) {
      if (I.isDebugOrPseudoInst())
        continue;
      if (const auto *Call = dyn_cast<CallBase>(&I))
        if (!isa<IntrinsicInst>(Call) || Call->isConvergent())
          return false;
      if (++Count > MaxBodyInstructions)
        return false;
    }
  return true;
}

/// Whether `L` has one exit whose test follows only from its induction variables and values it
/// does not change: no value it loads or computes in floating point. Its copies then test the
/// exit without waiting for one another's work (a grid-stride loop, whose count SCEV cannot
/// compute, as the index may wrap, keeps four loads in flight). A loop whose exit depends on
/// what it computes (an escape-time test, a search down a tree) is left rolled: each copy would
/// wait for the previous one to decide, and give a diverged warp one more place to reconverge
/// (a Mandelbrot loop unrolled so ran 5% slower than NVIDIA's rolled one).
bool exitFollowsInduction(const Loop &L) {
  const BasicBlock *Exiting = L.getExitingBlock();
  const auto *Branch = dyn_cast_or_null<BranchInst>(Exiting ? Exiting->getTerminator() : nullptr);
  if (Branch == nullptr || !Branch->isConditional())
    return false;
  SmallVector<const Value *, 16> Pending{Branch->getCondition()};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Pending.empty()) {
    const auto *I = dyn_cast<Instruction>(Pending.pop_back_val());
    if (I == nullptr || !L.contains(I) || !Seen.insert(I).second)
      continue;
    if (I->mayReadFromMemory() || isa<CallBase>(I) || I->getType()->isFPOrFPVectorTy() ||
        isa<FCmpInst>(I))
      return false;
    append_range(Pending, I->operands());
  }
  return true;
}

/// Gives every loop a follow-up attribute for the loop that LLVM's own unrolling (NVPTX asks the
/// pipeline for partial and runtime unrolling) leaves behind: that loop is then marked as not to
/// be unrolled again, and MarkCountedLoopsPass passes it by. Unrolled once more, a CSR row's
/// loop that the pipeline had unrolled by eight ran thirty-two copies deep behind two remainder
/// loops, while its rows hold 8 to 40 elements.
class MarkPipelineUnrollsPass : public PassInfoMixin<MarkPipelineUnrollsPass> {
public:
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    LLVMContext &Context = F.getContext();
    MDNode *NoFurtherUnrolling = MDNode::get(
        Context, {MDString::get(Context, LLVMLoopUnrollFollowupUnrolled),
                  MDNode::get(Context, MDString::get(Context, "llvm.loop.unroll.disable"))});
    for (Loop *L : AM.getResult<LoopAnalysis>(F).getLoopsInPreorder())
      L->setLoopID(
          makePostTransformationMetadata(Context, L->getLoopID(), {}, {NoFurtherUnrolling}));
    // Only metadata changed.
    return PreservedAnalyses::all();
  }
};

/// Marks the loops to unroll with llvm.loop.unroll.count, which LoopUnrollPass honours.
class MarkCountedLoopsPass : public PassInfoMixin<MarkCountedLoopsPass> {
public:
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    auto &LI = AM.getResult<LoopAnalysis>(F);
    auto &SE = AM.getResult<ScalarEvolutionAnalysis>(F);
    for (Loop *L : LI.getLoopsInPreorder()) {
      if (!L->isInnermost() || hasUnrollTransformation(L) != TM_Unspecified)
        continue;
      // A trip count known only at run time unrolls with a remainder loop, which LLVM builds
      // for loops of one exit.
      unsigned Trips = SE.getSmallConstantTripCount(L);
      bool Worth = Trips == 0 ? exitFollowsInduction(*L) : Trips >= MinTripCount;
      if (!Worth || !isSmallCallFreeLoop(*L))
        continue;
      addStringMetadataToLoop(L, "llvm.loop.unroll.count", UnrollFactor);
    }
    // Only metadata changed.
    return PreservedAnalyses::all();
  }
};

} // namespace

void markPipelineUnrolls(FunctionPassManager &passes) {
  passes.addPass(MarkPipelineUnrollsPass());
}

void unrollCountedLoops(Module &module, TargetMachine &machine) {
  FunctionPassManager functions;
  functions.addPass(MarkCountedLoopsPass());
  functions.addPass(LoopUnrollPass(LoopUnrollOptions(3)));
  functions.addPass(InstCombinePass());
  functions.addPass(EarlyCSEPass());
  functions.addPass(SimplifyCFGPass());
  PassBuilder builder(&machine);
  compiler::runOnEveryFunction(module, builder, std::move(functions));
}

} // namespace kiln::cuda
