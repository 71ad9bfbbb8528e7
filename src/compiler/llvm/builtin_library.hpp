// The builtin library's bitcode, embedded at build time (src/builtins) as many small modules
// ("pieces": each source file split into parts), and which piece defines each function and
// variable, so that linking a program reads only the pieces it needs: reading the module-level
// records of all ~11,000 functions for every program cost more than optimizing most kernels, and
// those of one source file's several hundred cost 5 ms for each file a program touched.
#pragma once

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kiln::compiler {

class BuiltinLibrary {
public:
  /// The embedded library, its index read on first use (once per process).
  static const BuiltinLibrary &get();

  /// Piece `index`'s bitcode, for the bitcode reader.
  llvm::MemoryBufferRef piece(size_t index) const;
  /// The piece that defines the external function or variable `symbol`, if any.
  std::optional<size_t> pieceDefining(llvm::StringRef symbol) const;

private:
  BuiltinLibrary();

  std::vector<std::span<const uint8_t>> pieces_;
  llvm::StringMap<size_t> definedIn_;
};

} // namespace kiln::compiler
