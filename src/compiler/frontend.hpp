// The OpenCL C front end: source to LLVM bitcode, linking, and reading kernel metadata. The
// interface is free of LLVM types; its implementation lives in libkiln-compiler.so, which the
// runtime loads on first use (see compiler/compiler_library.hpp).
#pragma once

#include "compiler/build_options.hpp"
#include "compiler/program_info.hpp"
#include "compiler/spirv_module.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compiler {

using Bitcode = std::vector<uint8_t>;

/// A header given to clCompileProgram through input_headers/header_include_names.
struct SourceHeader {
  std::string includeName;
  std::string text;
};

/// What the device's compiler accepts: the front end enables exactly these.
struct TargetDescription {
  std::string triple = "spir64-unknown-unknown";
  /// OpenCL C versions a program may ask for with -cl-std (CL_DEVICE_OPENCL_C_ALL_VERSIONS).
  std::vector<cl_version> languageVersions;
  std::vector<std::string> extensions; // cl_khr_fp64, ...
  std::vector<std::string> features;   // __opencl_c_fp64, ...
  /// The SPIR-V versions it reads (CL_DEVICE_ILS_WITH_VERSION).
  std::vector<cl_version> spirvVersions;
  /// Whether OpenCL C's GNU `asm` statements are accepted (the device's code generator passes
  /// their text to its own assembly language); otherwise `asm` is an ordinary identifier.
  bool inlineAssembly = false;
  /// The constraint letters of the device's own register classes that `asm` operands may name
  /// (PTX's "chlfd"); the front end reads them as the generic `r` (asm_register_constraints.hpp).
  std::string inlineAssemblyRegisterClasses;
};

struct CompileResult {
  bool success = false;
  std::string log;
  Bitcode module;
};

struct LinkResult {
  bool success = false;
  std::string log;
  Bitcode module;
  ProgramInfo info; // filled for executables
};

class Frontend {
public:
  virtual ~Frontend() = default;

  /// clCompileProgram, and the first half of clBuildProgram.
  virtual CompileResult compile(std::string_view source, std::span<const SourceHeader> headers,
                                const BuildOptions &options, const TargetDescription &target) = 0;

  /// clLinkProgram, and the second half of clBuildProgram. An executable has the builtin library
  /// linked in and no undefined functions left; a library (-create-library) is a plain merge.
  virtual LinkResult link(std::span<const Bitcode *const> modules, const BuildOptions &options,
                          const TargetDescription &target) = 0;

  /// clCompileProgram, and the first half of clBuildProgram, of a program created from SPIR-V
  /// (clCreateProgramWithIL), with `values` as its specialization constants.
  virtual CompileResult compileIntermediate(std::span<const uint8_t> il,
                                            const SpecializationValues &values,
                                            const BuildOptions &options,
                                            const TargetDescription &target) = 0;

  /// Checks a module read from a program binary and, for an executable, reports its kernels.
  /// Returns an empty string when the module is usable, otherwise why not.
  virtual std::string inspect(const Bitcode &module, bool executable, ProgramInfo &info) = 0;
};

} // namespace kiln::compiler
