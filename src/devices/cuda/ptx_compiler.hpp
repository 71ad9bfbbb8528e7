// Turns a linked program module into PTX for one NVIDIA GPU architecture. The interface is free
// of LLVM types; the implementation (codegen/) lives in libkiln-compiler.so.
#pragma once

#include "compiler/code_generator.hpp"
#include "compiler/frontend.hpp"

#include <string>
#include <string_view>

namespace kiln::cuda {

struct PtxResult {
  bool success = false;
  std::string ptx;
  /// Why it failed, or nothing.
  std::string error;
};

/// The GPU device's code generator.
class PtxCompiler : public compiler::CodeGenerator {
public:
  /// What it registers under in the code generator list.
  static constexpr std::string_view kKind = "cuda";

  /// Compiles every kernel of `module` (a linked SPIR64 executable, as the front end makes for
  /// the GPU device) into one PTX module for `sm_<smVersion>` (e.g. 90 for an H100), each kernel
  /// an entry named cuda::entryName() with the launch ABI of launch_abi.hpp. Thread safe.
  virtual PtxResult compile(const compiler::Bitcode &module, const compiler::ProgramInfo &info,
                            unsigned smVersion, bool optimize) = 0;
};

} // namespace kiln::cuda
