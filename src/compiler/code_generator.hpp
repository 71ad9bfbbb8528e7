//===- code_generator.hpp - What a device's compiler back end is -----------===//
//
// The compiler library knows devices only as kinds of code generator. Each device's folder
// defines the interface its driver needs from its code generator (derived from CodeGenerator,
// with the kind it registers under), implements it in libkiln-compiler.so, and adds one row to
// the code generator list (devices/code_generator_list.cpp), the compiler library's composition
// root. The driver receives a handle to it when the platform creates it
// (runtime/objects/compiler_loader.hpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <span>
#include <string_view>

namespace kiln::compiler {

/// The part of libkiln-compiler.so that turns the front end's linked executables into code for
/// one kind of device.
class CodeGenerator {
public:
  virtual ~CodeGenerator() = default;
};

/// One row of the code generator list: the kind a driver looks its code generator up by, and
/// how to make it (once per process, when the compiler library is loaded).
struct CodeGeneratorKind {
  std::string_view kind;
  std::unique_ptr<CodeGenerator> (*create)();
};

/// Every code generator this build of libkiln-compiler.so has (devices/code_generator_list.cpp).
std::span<const CodeGeneratorKind> codeGeneratorList();

} // namespace kiln::compiler
