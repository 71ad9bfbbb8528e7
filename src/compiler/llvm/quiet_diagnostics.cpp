#include "compiler/llvm/quiet_diagnostics.hpp"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::compiler {

bool QuietDiagnostics::handleDiagnostics(const llvm::DiagnosticInfo &info) {
  if (info.getSeverity() == llvm::DS_Error && firstError_.empty()) {
    llvm::raw_string_ostream stream(firstError_);
    llvm::DiagnosticPrinterRawOStream printer(stream);
    info.print(printer);
  }
  return true;
}

QuietDiagnostics &makeDiagnosticsQuiet(llvm::LLVMContext &context) {
  auto handler = std::make_unique<QuietDiagnostics>();
  QuietDiagnostics &installed = *handler;
  context.setDiagnosticHandler(std::move(handler));
  return installed;
}

std::unique_ptr<llvm::LLVMContext> makeQuietContext() {
  auto context = std::make_unique<llvm::LLVMContext>();
  makeDiagnosticsQuiet(*context);
  return context;
}

} // namespace kiln::compiler
