// PLACEHOLDER: the Clang front end is being written.
#include "compiler/llvm/clang_frontend.hpp"

namespace kiln::compiler {
namespace {
class ClangFrontend final : public Frontend {
public:
  CompileResult compile(std::string_view, std::span<const SourceHeader>, const BuildOptions &,
                        const TargetDescription &) override {
    return {false, "not written yet", {}};
  }
  LinkResult link(std::span<const Bitcode *const>, const BuildOptions &,
                  const TargetDescription &) override {
    return {false, "not written yet", {}, {}};
  }
  std::string inspect(const Bitcode &, bool, ProgramInfo &) override { return "not written yet"; }
};
} // namespace

std::unique_ptr<Frontend> createClangFrontend() { return std::make_unique<ClangFrontend>(); }

} // namespace kiln::compiler
