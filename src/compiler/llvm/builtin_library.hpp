// The builtin library's bitcode, embedded at build time (src/builtins).
#pragma once

#include <cstdint>
#include <span>

namespace kiln::compiler {

std::span<const uint8_t> builtinLibraryBitcode();

} // namespace kiln::compiler
