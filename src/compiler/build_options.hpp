// The options string of clBuildProgram, clCompileProgram and clLinkProgram, parsed and checked
// against the options the OpenCL specification defines. Parsing happens in the runtime (no LLVM
// needed), so an unknown option is rejected before the compiler library is ever loaded.
#pragma once

#include "support/icd_handles.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kiln::compiler {

/// Which API call the options were given to: each accepts a different set.
enum class OptionsUse {
  Build,   // clBuildProgram: compile and link options
  Compile, // clCompileProgram: compile options
  Link,    // clLinkProgram: link options
};

struct BuildOptions {
  /// Arguments for Clang's cc1 that implement the preprocessor, warning and math options
  /// (-D, -I, -w, -Werror, -cl-mad-enable, -cl-fast-relaxed-math, ...), in order.
  std::vector<std::string> frontendArgs;
  /// The language version -cl-std asked for, 0 when not given. For C++ for OpenCL
  /// (-cl-std=CLC++, CLC++1.0: 2.0; CLC++2021: 3.0) the OpenCL C version it is based on.
  cl_version languageVersion = 0;
  /// -cl-std=CLC++* : the source is C++ for OpenCL. The front end compiles it only for devices
  /// that list the cl_ext_cxx_for_opencl extension.
  bool cxxForOpenCL = false;
  bool optimizationsDisabled = false;      // -cl-opt-disable
  bool kernelArgInfo = false;              // -cl-kernel-arg-info
  bool debugInfo = false;                  // -g
  bool uniformWorkGroupSize = false;       // -cl-uniform-work-group-size
  bool denormsAreZero = false;             // -cl-denorms-are-zero
  bool correctlyRoundedDivideSqrt = false; // -cl-fp32-correctly-rounded-divide-sqrt
  bool createLibrary = false;              // -create-library (link only)
  bool enableLinkOptions = false;          // -enable-link-options (link only)

  /// Whether every work-group must be full: OpenCL C 1.x programs (2.0 and later allow smaller
  /// groups at the edges of the range) and -cl-uniform-work-group-size.
  bool requiresUniformWorkGroups() const {
    return uniformWorkGroupSize || languageVersion < CL_MAKE_VERSION(2, 0, 0);
  }
};

/// Parses `text`. Returns an empty string on success, otherwise a message naming the option
/// that is not valid for `use` (the caller returns CL_INVALID_BUILD_OPTIONS or
/// CL_INVALID_COMPILER_OPTIONS / CL_INVALID_LINKER_OPTIONS).
std::string parseBuildOptions(std::string_view text, OptionsUse use, BuildOptions &options);

} // namespace kiln::compiler
