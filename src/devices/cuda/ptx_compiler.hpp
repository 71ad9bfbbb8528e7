// Turns a linked program module into PTX for one NVIDIA GPU architecture. The interface is free
// of LLVM types; the implementation (codegen/) lives in libkiln-compiler.so.
#pragma once

#include "compiler/code_generator.hpp"
#include "compiler/frontend.hpp"

#include <array>
#include <string>
#include <string_view>

namespace kiln::cuda {

/// The sub-group sizes a kernel may require (intel_reqd_sub_group_size,
/// CL_DEVICE_SUB_GROUP_SIZES_INTEL): a warp, or a part of one (codegen/warp_lanes.hpp). A kernel
/// that requires none has the warp's.
inline constexpr std::array<unsigned, 3> kSubGroupSizes = {8, 16, 32};
inline constexpr unsigned kWarpSize = 32;

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
