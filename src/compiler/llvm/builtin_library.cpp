#include "compiler/llvm/builtin_library.hpp"

// What src/builtins/embed_builtins.S provides: the pieces' bytes, and for each piece the offsets
// of its first byte and of the byte after it.
extern "C" const uint8_t kiln_builtins_bitcode[];
extern "C" const uint64_t kiln_builtin_piece_offsets[][2];
extern "C" const uint64_t kiln_builtin_piece_count;
extern "C" const char kiln_builtin_symbols[];
extern "C" const uint64_t kiln_builtin_symbol_offsets[][2];

namespace kiln::compiler {

const BuiltinLibrary &BuiltinLibrary::get() {
  static const BuiltinLibrary library;
  return library;
}

BuiltinLibrary::BuiltinLibrary() {
  for (uint64_t index = 0; index < kiln_builtin_piece_count; ++index) {
    auto [begin, end] = kiln_builtin_piece_offsets[index];
    pieces_.emplace_back(kiln_builtins_bitcode + begin, end - begin);
  }
  // The names each piece defines were listed when the library was built.
  for (uint64_t index = 0; index < kiln_builtin_piece_count; ++index) {
    auto [begin, end] = kiln_builtin_symbol_offsets[index];
    llvm::StringRef names(kiln_builtin_symbols + begin, end - begin);
    while (!names.empty()) {
      auto [name, rest] = names.split('\n');
      if (!name.empty())
        definedIn_.try_emplace(name, index);
      names = rest;
    }
  }
}

llvm::MemoryBufferRef BuiltinLibrary::piece(size_t index) const {
  return {
      llvm::StringRef(reinterpret_cast<const char *>(pieces_[index].data()), pieces_[index].size()),
      "builtin library piece"};
}

std::optional<size_t> BuiltinLibrary::pieceDefining(llvm::StringRef symbol) const {
  auto found = definedIn_.find(symbol);
  if (found == definedIn_.end())
    return std::nullopt;
  return found->second;
}

} // namespace kiln::compiler
