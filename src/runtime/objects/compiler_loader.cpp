//===- compiler_loader.cpp - libkiln-compiler.so, loaded on first use ------===//
#include "runtime/objects/compiler_loader.hpp"

#include "compiler/compiler_library.hpp"
#include "runtime/program_cache/build_id.hpp"
#include "support/settings.hpp"
#include "support/shared_object_folder.hpp"

#include <dlfcn.h>

namespace kiln {
namespace {

/// The folder libkiln.so was loaded from, with a trailing slash.
std::string libraryFolder() {
  return sharedObjectFolder(reinterpret_cast<const void *>(&libraryFolder));
}

std::string compilerLibraryPath() {
  std::optional<std::string_view> chosen = settingValue(Setting::CompilerLibrary);
  return chosen ? std::string(*chosen) : libraryFolder() + "libkiln-compiler.so";
}

} // namespace

const std::string &CompilerLoader::buildIdentity() {
  std::call_once(buildIdentityRead_, [this] {
    std::string kiln = loadedBuildId(reinterpret_cast<void *>(&libraryFolder));
    std::string compiler = readBuildId(compilerLibraryPath());
    if (!kiln.empty() && !compiler.empty())
      buildIdentity_ = kiln + " " + compiler;
  });
  return buildIdentity_;
}

void CompilerLoader::load() {
  buildIdentity(); // before the library is loaded: see buildIdentity()
  std::string path = compilerLibraryPath();
  // RTLD_LOCAL keeps LLVM's symbols out of the global scope, away from any other LLVM the
  // application has loaded. Never closed: LLVM does not support being unloaded and reloaded.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *reason = dlerror();
    error_ = reason != nullptr ? reason : "dlopen failed";
    return;
  }
  auto entry = reinterpret_cast<CompilerServicesEntry>(dlsym(handle, kCompilerServicesSymbol));
  if (entry == nullptr) {
    error_ = path + " has no " + kCompilerServicesSymbol;
    return;
  }
  services_ = entry();
}

CompilerServices *CompilerLoader::services(std::string &error) {
  std::call_once(loaded_, [this] { load(); });
  if (services_ == nullptr)
    error = error_;
  return services_;
}

compiler::CodeGenerator *CompilerLoader::codeGenerator(std::string_view kind, std::string &error) {
  CompilerServices *services = this->services(error);
  if (services == nullptr)
    return nullptr;
  compiler::CodeGenerator *generator = services->codeGenerator(kind);
  if (generator == nullptr)
    error = "the compiler library has no code generator for devices of kind '" + std::string(kind) +
            "'";
  return generator;
}

} // namespace kiln
