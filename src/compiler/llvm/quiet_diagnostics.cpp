#include "compiler/llvm/quiet_diagnostics.hpp"

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::compiler {
namespace {

class QuietDiagnostics final : public llvm::DiagnosticHandler {
public:
  explicit QuietDiagnostics(std::shared_ptr<DiagnosedErrors> errors) : errors_(std::move(errors)) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    errors_->note(info);
    return true;
  }

private:
  std::shared_ptr<DiagnosedErrors> errors_;
};

} // namespace

void DiagnosedErrors::note(const llvm::DiagnosticInfo &info) {
  if (info.getSeverity() != llvm::DS_Error || !first_.empty())
    return;
  llvm::raw_string_ostream stream(first_);
  llvm::DiagnosticPrinterRawOStream printer(stream);
  info.print(printer);
}

llvm::Error DiagnosedErrors::check(const std::string &what) const {
  if (first_.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), what + ": " + first_);
}

std::shared_ptr<const DiagnosedErrors> makeDiagnosticsQuiet(llvm::LLVMContext &context) {
  auto errors = std::make_shared<DiagnosedErrors>();
  context.setDiagnosticHandler(std::make_unique<QuietDiagnostics>(errors));
  return errors;
}

std::unique_ptr<llvm::LLVMContext> makeQuietContext() {
  auto context = std::make_unique<llvm::LLVMContext>();
  makeDiagnosticsQuiet(*context);
  return context;
}

} // namespace kiln::compiler
