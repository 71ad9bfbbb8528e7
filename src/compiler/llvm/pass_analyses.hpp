//===- pass_analyses.hpp - The analysis managers of a pass pipeline ------===//
#pragma once

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

#include <utility>

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

/// Runs `functions` on every function of `module`, with the analyses `builder` registers.
inline void runOnEveryFunction(llvm::Module &module, llvm::PassBuilder &builder,
                               llvm::FunctionPassManager functions) {
  PassAnalyses analyses(builder);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(functions)));
  passes.run(module, analyses.modules);
}

} // namespace kiln::compiler
