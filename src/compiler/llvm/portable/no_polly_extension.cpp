// The portable build only (KILN_PORTABLE). Debian's Clang is built with Polly as a static pass
// extension: its code generator registers Polly's passes with every pass builder it makes, and so
// refers to getPollyPluginInfo, which only Polly's own library (shipped as a plugin, not as a
// static library) defines. Kiln never asks for Polly's passes: here its registration adds none.
#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked)", "0", [](llvm::PassBuilder &) {}};
}
