#include "compiler/llvm/builtin_library.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

// What src/builtins/embed_builtins.S provides: the pieces' bytes, and for each piece the offsets
// of its first byte and of the byte after it.
extern "C" const uint8_t kiln_builtins_bitcode[];
extern "C" const uint64_t kiln_builtin_piece_offsets[][2];
extern "C" const uint64_t kiln_builtin_piece_count;

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
  // The symbols come from the pieces' module-level records; no function body is read.
  llvm::LLVMContext context;
  for (size_t index = 0; index < pieces_.size(); ++index) {
    llvm::Expected<std::unique_ptr<llvm::Module>> module =
        llvm::getLazyBitcodeModule(piece(index), context, /*ShouldLazyLoadMetadata=*/true);
    if (!module) {
      // A piece that cannot be read defines nothing; the link then reports its symbols as
      // undefined. (The build checks every piece, so this means a damaged binary.)
      llvm::consumeError(module.takeError());
      continue;
    }
    for (const llvm::GlobalValue &value : (*module)->global_values())
      if (!value.isDeclaration() && !value.hasLocalLinkage())
        definedIn_.try_emplace(value.getName(), index);
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
