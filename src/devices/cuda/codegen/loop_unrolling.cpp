//===- loop_unrolling.cpp - Unrolling counted loops for the GPU ----------===//
#include "devices/cuda/codegen/loop_unrolling.hpp"

#include "compiler/llvm/pass_analyses.hpp"

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
      bool Worth = Trips == 0 ? L->getExitingBlock() != nullptr : Trips >= MinTripCount;
      if (!Worth || !isSmallCallFreeLoop(*L))
        continue;
      addStringMetadataToLoop(L, "llvm.loop.unroll.count", UnrollFactor);
    }
    // Only metadata changed.
    return PreservedAnalyses::all();
  }
};

} // namespace

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
