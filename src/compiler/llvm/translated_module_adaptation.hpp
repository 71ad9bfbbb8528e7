//===- translated_module_adaptation.hpp - The translator's IR as Clang's ---===//
//
// The Khronos translator writes LLVM 15 IR, which LLVM 22 reads with its typed pointers made
// opaque. That IR differs from what Kiln's front end makes from OpenCL C in ways the rest of
// the compiler notices: OpenCL's opaque types (images, samplers, events, pipes, ...) are plain
// pointers where Clang uses target extension types, string constants in the constant address
// space are not marked constant, the pointer upgrade leaves bitcasts of a value to its own
// type, and sign extensions come as pairs of shifts. This step makes the module what the front end
// would have made, so that the builtin library links with it and the passes after it (printf,
// images) recognize what they look for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

#include <string>

namespace kiln::compiler {

/// Adapts `module` in place; false, with the reason in `log`, when the builtin library cannot
/// be read.
bool adaptTranslatedModule(llvm::Module &module, std::string &log);

} // namespace kiln::compiler
