// The Frontend implementation on Clang and LLVM.
#pragma once

#include "compiler/frontend.hpp"

#include <memory>

namespace kiln::compiler {

std::unique_ptr<Frontend> createClangFrontend();

} // namespace kiln::compiler
