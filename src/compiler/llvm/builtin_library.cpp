#include "compiler/llvm/builtin_library.hpp"

// Bounds of the bitcode that src/builtins/embed_builtins.S includes.
extern "C" const uint8_t kiln_builtins_bitcode[];
extern "C" const uint8_t kiln_builtins_bitcode_end[];

namespace kiln::compiler {

std::span<const uint8_t> builtinLibraryBitcode() {
  return {kiln_builtins_bitcode, kiln_builtins_bitcode_end};
}

} // namespace kiln::compiler
