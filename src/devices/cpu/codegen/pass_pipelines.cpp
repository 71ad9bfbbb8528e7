//===- pass_pipelines.cpp - The optimization pipelines of the CPU JIT ----===//
#include "devices/cpu/codegen/pass_pipelines.hpp"

#include "compiler/llvm/pass_analyses.hpp"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
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

void optimizeModule(Module &module, TargetMachine &machine, bool optimize) {
  PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  PassBuilder builder(&machine, tuning);
  compiler::PassAnalyses analyses(builder);
  ModulePassManager passes;
  if (optimize)
    passes = builder.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  else
    // Still drop what the work-group functions no longer use: the kernels and functions they
    // were inlined from call primitives that only the work-group functions have replaced.
    passes.addPass(GlobalDCEPass());
  passes.run(module, analyses.modules);
}

} // namespace kiln::cpu
