// The compiler library, libkiln-compiler.so: Clang, LLVM and the devices' code generators. The
// runtime loads it with dlopen on the first build (runtime/objects/compiler_loader.hpp), so
// applications that only enumerate platforms never pay for loading LLVM (or clash with another LLVM
// in their process).
#pragma once

#include <string_view>

namespace kiln::compiler {
class CodeGenerator;
class Frontend;
} // namespace kiln::compiler

namespace kiln {

/// Everything libkiln-compiler.so provides. One instance lives as long as the process.
class CompilerServices {
public:
  virtual ~CompilerServices() = default;
  /// OpenCL C to LLVM bitcode, linking, metadata: the same for every device.
  virtual compiler::Frontend &frontend() = 0;
  /// The code generator registered under `kind` (compiler/code_generator.hpp), or null when
  /// this build of the library has none of that kind.
  virtual compiler::CodeGenerator *codeGenerator(std::string_view kind) = 0;
};

/// The symbol libkiln-compiler.so exports; bump the suffix when the interfaces change.
inline constexpr const char *kCompilerServicesSymbol = "kiln_compiler_services_v4";
using CompilerServicesEntry = CompilerServices *(*)();

} // namespace kiln
