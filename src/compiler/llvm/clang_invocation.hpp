// OpenCL C source to an LLVM module with Clang's front end, in process.
#pragma once

#include "compiler/frontend.hpp"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compiler {

/// The name the program source has in diagnostics ("<kernel source>:3:7: error: ...").
inline constexpr const char *kMainFileName = "<kernel source>";

/// The OpenCL C version to compile for: the one -cl-std asked for, else the highest 1.x version
/// the device supports (the specification's default). Returns nothing, with a line in `log`, when
/// the device does not support the version asked for.
std::optional<cl_version> chooseLanguageVersion(const BuildOptions &options,
                                                const TargetDescription &target, std::string &log);

/// The complete cc1 argument list for compiling the main file (see kMainFileName), declaring the
/// builtins of Kiln's extensions that Clang's tables lack when `extensionBuiltins` is set.
std::vector<std::string> clangArguments(const BuildOptions &options,
                                        const TargetDescription &target, cl_version version,
                                        bool extensionBuiltins);

/// Compiles `source`, with `headers` visible to its #include directives, into a module owned by
/// `context`. Clang's diagnostics go to `log` as Clang prints them; returns null when the
/// compile failed.
std::unique_ptr<llvm::Module> runClang(std::string_view source,
                                       std::span<const SourceHeader> headers,
                                       const BuildOptions &options, const TargetDescription &target,
                                       llvm::LLVMContext &context, std::string &log);

} // namespace kiln::compiler
