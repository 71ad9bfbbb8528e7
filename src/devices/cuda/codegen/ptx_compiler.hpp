//===- ptx_compiler.hpp - Linked programs to PTX -------------------------===//
#pragma once

#include "devices/cuda/ptx_compiler.hpp"

#include <memory>

namespace kiln::cuda {

std::unique_ptr<PtxCompiler> createPtxCompiler();

} // namespace kiln::cuda
