// The Frontend on Clang and LLVM: each call works in its own LLVMContext on its own thread
// (runGuarded), so calls from several application threads run in parallel without sharing
// state. Only SPIR64 IR is produced and read here, which needs no LLVM target to be initialized.
#include "compiler/llvm/clang_frontend.hpp"

#include "compiler/llvm/bitcode_io.hpp"
#include "compiler/llvm/clang_invocation.hpp"
#include "compiler/llvm/fatal_error_guard.hpp"
#include "compiler/llvm/float_accuracy.hpp"
#include "compiler/llvm/kernel_metadata.hpp"
#include "compiler/llvm/module_linker.hpp"
#include "compiler/llvm/spirv_reader.hpp"

#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::compiler {
namespace {

/// Runs `body` guarded; a fatal error inside it fails the result with the reason in its log.
template <typename Result, typename Body> void runForResult(Result &result, Body &&body) {
  std::string fatal;
  if (runGuarded(body, fatal))
    return;
  result.success = false;
  result.module.clear();
  result.log += "error: " + fatal + "\n";
}

class ClangFrontend final : public Frontend {
public:
  CompileResult compile(std::string_view source, std::span<const SourceHeader> headers,
                        const BuildOptions &options, const TargetDescription &target) override {
    CompileResult result;
    runForResult(result, [&] {
      llvm::LLVMContext context;
      std::unique_ptr<llvm::Module> module =
          runClang(source, headers, options, target, context, result.log);
      if (!module)
        return;
      setArgInfoRequested(*module, options.kernelArgInfo);
      setDenormsAreZero(*module, options.denormsAreZero);
      // Clang's own verifier is off (it aborts the process on failure): check here instead.
      llvm::raw_string_ostream logStream(result.log);
      if (llvm::verifyModule(*module, &logStream)) {
        result.log += "internal compiler error: Clang produced an invalid module\n";
        return;
      }
      result.module = writeModule(*module);
      result.success = true;
    });
    return result;
  }

  CompileResult compileIntermediate(std::span<const uint8_t> il, const SpecializationValues &values,
                                    const BuildOptions &options,
                                    const TargetDescription &target) override {
    CompileResult result;
    runForResult(result, [&] {
      llvm::LLVMContext context;
      std::unique_ptr<llvm::Module> module = readSpirv(il, values, target, context, result.log);
      if (!module)
        return;
      if (!options.correctlyRoundedDivideSqrt)
        markInexactFloatMath(*module);
      setArgInfoRequested(*module, options.kernelArgInfo);
      setDenormsAreZero(*module, options.denormsAreZero);
      result.module = writeModule(*module);
      result.success = true;
    });
    return result;
  }

  LinkResult link(std::span<const Bitcode *const> modules, const BuildOptions &options,
                  const TargetDescription &target) override {
    LinkResult result;
    runForResult(result, [&] {
      llvm::LLVMContext context;
      std::unique_ptr<llvm::Module> module = linkProgram(modules, options, context, result.log);
      if (!module)
        return;
      if (!options.createLibrary) {
        setArgInfoRequested(*module, options.kernelArgInfo);
        // As a program linking option it applies to the whole executable.
        if (options.denormsAreZero)
          setDenormsAreZero(*module, true);
        result.info = extractProgramInfo(*module);
      }
      result.module = writeModule(*module);
      result.success = true;
    });
    return result;
  }

  std::string inspect(const Bitcode &bitcode, bool executable, ProgramInfo &info) override {
    std::string error;
    std::string fatal;
    bool finished = runGuarded(
        [&] {
          llvm::LLVMContext context;
          auto module = readModule(bitcode, context, "program binary");
          if (!module) {
            error = llvm::toString(module.takeError());
            return;
          }
          if (!executable)
            return;
          for (const std::string &line : undefinedSymbols(**module))
            error += (error.empty() ? "program binary: " : "; ") + line;
          if (error.empty())
            info = extractProgramInfo(**module);
        },
        fatal);
    return finished ? error : "program binary: " + fatal;
  }
};

} // namespace

std::unique_ptr<Frontend> createClangFrontend() {
  return std::make_unique<ClangFrontend>();
}

} // namespace kiln::compiler
