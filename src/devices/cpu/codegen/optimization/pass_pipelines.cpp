//===- pass_pipelines.cpp - The optimization pipelines of the CPU JIT ----===//
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"

#include "compiler/llvm/pass_analyses.hpp"

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopUnrollAndJamPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"

using namespace llvm;

namespace kiln::cpu {

void simplifyKernelBody(Function &function, TargetMachine &machine) {
  PassBuilder builder(&machine);
  compiler::PassAnalyses analyses(builder);
  FunctionPassManager passes;
  passes.addPass(SROAPass(SROAOptions::PreserveCFG));
  passes.addPass(EarlyCSEPass());
  passes.addPass(InstSimplifyPass());
  passes.run(function, analyses.functions);
}

namespace {

/// Rewrites each bitcast between an integer and a vector of integers (the builtin library packs
/// a ballot's 64 bits into a uint4 so) as the shifts, truncations and insertions it stands for,
/// which the scalarizer then splits: the vectorizer widens scalars, not vectors.
void splitIntegerVectorBitcasts(Function &function) {
  const DataLayout &layout = function.getDataLayout();
  if (!layout.isLittleEndian())
    return;
  SmallVector<BitCastInst *, 8> casts;
  for (Instruction &instruction : instructions(function))
    if (auto *bitcast = dyn_cast<BitCastInst>(&instruction)) {
      Type *from = bitcast->getSrcTy(), *to = bitcast->getDestTy();
      bool toVector = from->isIntegerTy() && to->isVectorTy() && to->getScalarType()->isIntegerTy();
      bool fromVector =
          to->isIntegerTy() && from->isVectorTy() && from->getScalarType()->isIntegerTy();
      if ((toVector && isa<FixedVectorType>(to)) || (fromVector && isa<FixedVectorType>(from)))
        casts.push_back(bitcast);
    }
  for (BitCastInst *bitcast : casts) {
    IRBuilder<> builder(bitcast);
    Value *source = bitcast->getOperand(0);
    Value *result = nullptr;
    if (auto *vector = dyn_cast<FixedVectorType>(bitcast->getDestTy())) {
      Type *element = vector->getElementType();
      unsigned bits = element->getIntegerBitWidth();
      result = PoisonValue::get(vector);
      for (unsigned index = 0; index < vector->getNumElements(); ++index) {
        Value *part = builder.CreateTrunc(
            builder.CreateLShr(source, ConstantInt::get(source->getType(), index * bits)), element);
        result = builder.CreateInsertElement(result, part, index);
      }
    } else {
      auto *from = cast<FixedVectorType>(source->getType());
      unsigned bits = from->getElementType()->getIntegerBitWidth();
      Type *to = bitcast->getDestTy();
      result = ConstantInt::get(to, 0);
      for (unsigned index = 0; index < from->getNumElements(); ++index) {
        Value *part = builder.CreateZExt(builder.CreateExtractElement(source, index), to);
        result =
            builder.CreateOr(result, builder.CreateShl(part, ConstantInt::get(to, index * bits)));
      }
    }
    bitcast->replaceAllUsesWith(result);
    bitcast->eraseFromParent();
  }
}

} // namespace

void prepareForVectorization(Function &function, TargetMachine &machine) {
  PassBuilder builder(&machine);
  compiler::PassAnalyses analyses(builder);
  ScalarizerPassOptions scalarizer;
  scalarizer.ScalarizeLoadStore = true;
  FunctionPassManager first;
  first.addPass(LowerSwitchPass());
  first.addPass(ScalarizerPass(scalarizer));
  first.run(function, analyses.functions);
  // The scalarizer leaves a vector bitcast's pieces as bitcasts between integers and vectors.
  splitIntegerVectorBitcasts(function);
  analyses.functions.invalidate(function, PreservedAnalyses::none());
  FunctionPassManager second;
  second.addPass(ScalarizerPass(scalarizer));
  second.addPass(EarlyCSEPass());
  second.addPass(InstSimplifyPass());
  second.addPass(LoopSimplifyPass());
  second.addPass(LCSSAPass());
  second.run(function, analyses.functions);
}

namespace {

/// Notes whether unroll-and-jam transformed a loop (it says so only in an optimization remark);
/// every other diagnostic goes to the handler it stands in for.
class UnrollAndJamWatch final : public DiagnosticHandler {
public:
  explicit UnrollAndJamWatch(std::unique_ptr<DiagnosticHandler> previous)
      : previous_(std::move(previous)) {}

  // Passes build a remark only when some remark is enabled at all.
  bool isAnyRemarkEnabled() const override { return true; }
  bool isPassedOptRemarkEnabled(StringRef pass) const override {
    return pass == kUnrollAndJamPass || previous_->isPassedOptRemarkEnabled(pass);
  }
  bool handleDiagnostics(const DiagnosticInfo &info) override {
    if (const auto *remark = dyn_cast<DiagnosticInfoOptimizationBase>(&info);
        remark && remark->isPassed() && remark->getPassName() == kUnrollAndJamPass) {
      jammed = true;
      return true;
    }
    return previous_->handleDiagnostics(info);
  }
  std::unique_ptr<DiagnosticHandler> takePrevious() { return std::move(previous_); }

  bool jammed = false;

private:
  static constexpr StringRef kUnrollAndJamPass = "loop-unroll-and-jam";
  std::unique_ptr<DiagnosticHandler> previous_;
};

} // namespace

bool optimizeModule(Module &module, TargetMachine &machine, bool optimize,
                    bool interleaveWorkItems) {
  PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  PassBuilder builder(&machine, tuning);
  compiler::PassAnalyses analyses(builder);
  ModulePassManager passes;
  if (optimize) {
    // Where the loop optimizer ends, before the vectorizers and the runtime unroller: only the
    // loops that ask for it by their metadata are unrolled and jammed.
    if (interleaveWorkItems)
      builder.registerLoopOptimizerEndEPCallback(
          [](LoopPassManager &loops, OptimizationLevel level) {
            loops.addPass(LoopUnrollAndJamPass(level.getSpeedupLevel()));
          });
    passes = builder.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  } else {
    // Still drop what the work-group functions no longer use: the kernels and functions they
    // were inlined from call primitives that only the work-group functions have replaced.
    passes.addPass(GlobalDCEPass());
  }
  if (!optimize || !interleaveWorkItems) {
    passes.run(module, analyses.modules);
    return false;
  }
  // The module has a context of its own (one per specialization): its handler is ours a while.
  LLVMContext &context = module.getContext();
  auto watch = std::make_unique<UnrollAndJamWatch>(context.getDiagnosticHandler());
  UnrollAndJamWatch &watching = *watch;
  context.setDiagnosticHandler(std::move(watch));
  passes.run(module, analyses.modules);
  bool jammed = watching.jammed;
  context.setDiagnosticHandler(watching.takePrevious()); // destroys the watch
  return jammed;
}

} // namespace kiln::cpu
