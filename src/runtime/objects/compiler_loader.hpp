//===- compiler_loader.hpp - libkiln-compiler.so, loaded on first use ------===//
//
// libkiln.so holds no LLVM: the compiler library is opened with dlopen on the first build, so
// applications that only enumerate platforms never pay for loading LLVM. The platform owns the
// one loader; each driver receives, when created, a handle to its code generator that loads the
// library when first used. Neither the runtime nor the loader names a device: a driver's handle
// carries the kind its code generator registered under (compiler/code_generator.hpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/code_generator.hpp"

#include <mutex>
#include <string>
#include <string_view>

namespace kiln {

class CompilerServices;

class CompilerLoader {
public:
  /// The compiler library, loaded on the first call. Null (with `error` set) when it cannot be
  /// loaded. Thread safe.
  CompilerServices *services(std::string &error);

  /// The library's code generator of `kind`; null (with `error` set) when the library cannot be
  /// loaded or has none of that kind.
  compiler::CodeGenerator *codeGenerator(std::string_view kind, std::string &error);

  /// What identifies the code of this Kiln in on-disk cache keys: the GNU build IDs of
  /// libkiln.so as loaded and of libkiln-compiler.so (read before it is loaded, so it describes
  /// the library this process runs). Empty when either has none: the cache is then off.
  const std::string &buildIdentity();

private:
  void load();

  std::once_flag loaded_;
  CompilerServices *services_ = nullptr;
  std::string error_;
  std::once_flag buildIdentityRead_;
  std::string buildIdentity_;
};

/// A driver's way to its code generator, `Generator` being the interface its device folder
/// defines (with the kind it registers under as `Generator::kKind`). Cheap to copy; the library
/// is loaded when get() is first called.
template <typename Generator> class CodeGeneratorHandle {
public:
  explicit CodeGeneratorHandle(CompilerLoader &loader) : loader_(&loader) {}

  /// Null (with `error` set) when the compiler library cannot be loaded or lacks the generator.
  Generator *get(std::string &error) const {
    // The list registers each kind with the generator of that interface.
    return static_cast<Generator *>(loader_->codeGenerator(Generator::kKind, error));
  }

private:
  CompilerLoader *loader_;
};

} // namespace kiln
