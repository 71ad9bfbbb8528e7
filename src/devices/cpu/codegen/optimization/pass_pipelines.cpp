//===- pass_pipelines.cpp - The optimization pipelines of the CPU JIT ----===//
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"

#include "compiler/llvm/pass_analyses.hpp"

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
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

void prepareForVectorization(Function &function, TargetMachine &machine) {
  PassBuilder builder(&machine);
  compiler::PassAnalyses analyses(builder);
  FunctionPassManager passes;
  passes.addPass(LowerSwitchPass());
  ScalarizerPassOptions scalarizer;
  scalarizer.ScalarizeLoadStore = true;
  passes.addPass(ScalarizerPass(scalarizer));
  passes.addPass(EarlyCSEPass());
  passes.addPass(InstSimplifyPass());
  passes.addPass(LoopSimplifyPass());
  passes.addPass(LCSSAPass());
  passes.run(function, analyses.functions);
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
