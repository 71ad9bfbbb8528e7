// LLVM diagnostics that never reach the application's terminal.
#pragma once

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/LLVMContext.h"

#include <memory>
#include <string>

namespace kiln::compiler {

/// A diagnostic handler for the contexts Kiln optimizes and generates code in. LLVMContext
/// prints every diagnostic that no handler claims to stderr, and ends the process after an
/// error: a pass that misses a transformation its loop metadata asked for warns that way
/// ("loop not unroll-and-jammed"). Kiln runs inside applications and writes nothing unless
/// asked, so this handler claims every diagnostic: warnings, remarks and notes are dropped,
/// and the first error's text is kept for the caller to report.
class QuietDiagnostics final : public llvm::DiagnosticHandler {
public:
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override;

  /// The first error diagnosed, empty when none was.
  const std::string &firstError() const { return firstError_; }

private:
  std::string firstError_;
};

/// Installs a QuietDiagnostics as `context`'s handler and returns it (the context owns it).
QuietDiagnostics &makeDiagnosticsQuiet(llvm::LLVMContext &context);

/// A new context whose diagnostics are quiet.
std::unique_ptr<llvm::LLVMContext> makeQuietContext();

} // namespace kiln::compiler
