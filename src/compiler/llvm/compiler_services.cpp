// The entry point of libkiln-compiler.so.
#include "compiler/code_generator.hpp"
#include "compiler/compiler_library.hpp"
#include "compiler/llvm/clang_frontend.hpp"

#include <llvm/ADT/Statistic.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <string_view>
#include <utility>
#include <vector>

namespace kiln {
namespace {

class LlvmCompilerServices final : public CompilerServices {
public:
  // LLVM's shared real file system and the lock of its statistics registry are created lazily
  // inside libLLVM. Creating them here, under this library's own once-only initialisation,
  // makes their construction happen before any build thread uses them, in a way
  // ThreadSanitizer can see (libLLVM itself is not instrumented): otherwise the first pass to
  // count a statistic in each of two concurrent builds races to create the lock, as far as it
  // can tell (ProgramCacheTest.ThreadsBuildingTheSameSourceAtOnceAllSucceed, once in a CI run).
  LlvmCompilerServices() {
    (void)llvm::vfs::getRealFileSystem();
    (void)llvm::GetStatistics();
    for (const compiler::CodeGeneratorKind &row : compiler::codeGeneratorList())
      codeGenerators_.emplace_back(row.kind, row.create());
  }

  compiler::Frontend &frontend() override { return *frontend_; }

  compiler::CodeGenerator *codeGenerator(std::string_view kind) override {
    for (auto &[registered, generator] : codeGenerators_)
      if (registered == kind)
        return generator.get();
    return nullptr;
  }

private:
  std::unique_ptr<compiler::Frontend> frontend_ = compiler::createClangFrontend();
  std::vector<std::pair<std::string_view, std::unique_ptr<compiler::CodeGenerator>>>
      codeGenerators_;
};

} // namespace
} // namespace kiln

extern "C" __attribute__((visibility("default"))) kiln::CompilerServices *
kiln_compiler_services_v4() {
  static kiln::LlvmCompilerServices services;
  return &services;
}
