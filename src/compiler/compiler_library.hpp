// The compiler library, libkiln-compiler.so: Clang, LLVM and the device code generators. The
// runtime loads it with dlopen on the first build, so applications that only enumerate
// platforms never pay for loading LLVM (or clash with another LLVM in their process).
#pragma once

namespace kiln::compiler {
class Frontend;
}
namespace kiln::cpu {
class KernelJit;
}
namespace kiln::cuda {
class PtxCompiler;
}

namespace kiln {

/// Everything libkiln-compiler.so provides. One instance lives as long as the process.
class CompilerServices {
public:
  virtual ~CompilerServices() = default;
  virtual compiler::Frontend &frontend() = 0;
  virtual cpu::KernelJit &cpuJit() = 0;
  virtual cuda::PtxCompiler &ptxCompiler() = 0;
};

/// The symbol libkiln-compiler.so exports; bump the suffix when the interfaces change.
inline constexpr const char *kCompilerServicesSymbol = "kiln_compiler_services_v3";
using CompilerServicesEntry = CompilerServices *(*)();

} // namespace kiln
