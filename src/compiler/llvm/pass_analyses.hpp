//===- pass_analyses.hpp - The analysis managers of a pass pipeline ------===//
#pragma once

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

namespace kiln::compiler {

/// The four analysis managers a PassBuilder needs, registered and cross-wired.
struct PassAnalyses {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;

  explicit PassAnalyses(llvm::PassBuilder &builder) {
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
  }
};

} // namespace kiln::compiler
