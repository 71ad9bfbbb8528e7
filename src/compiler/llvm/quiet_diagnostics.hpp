// LLVM diagnostics that never reach the application's terminal.
#pragma once

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace kiln::compiler {

/// The errors diagnosed in a context whose diagnostics are quiet. LLVMContext prints every
/// diagnostic that no handler claims to stderr, and ends the process after an error: a pass
/// that misses a transformation its loop metadata asked for warns that way ("loop not
/// unroll-and-jammed"). Kiln runs inside applications and writes nothing unless asked, so its
/// handler claims every diagnostic: warnings, remarks and notes are dropped, and the first
/// error's text is kept here for the caller to report. It lives apart from the context, which a
/// JIT frees once it has generated the module's code (the last step that diagnoses).
class DiagnosedErrors {
public:
  void note(const llvm::DiagnosticInfo &info);

  /// Success when no error was diagnosed; else the first one, after `what` and ": ".
  llvm::Error check(const std::string &what) const;

private:
  std::string first_;
};

/// Makes `context`'s diagnostics quiet; what they were is kept in the result.
std::shared_ptr<const DiagnosedErrors> makeDiagnosticsQuiet(llvm::LLVMContext &context);

/// A new context whose diagnostics are quiet (for code that cannot fail in code generation).
std::unique_ptr<llvm::LLVMContext> makeQuietContext();

} // namespace kiln::compiler
