// The KernelJit implementation: work-group functions generated in LLVM IR and compiled for the
// host CPU with ORC.
#pragma once

#include "devices/cpu/kernel_jit.hpp"

#include <memory>

namespace kiln::cpu {

std::unique_ptr<KernelJit> createCpuKernelJit();

} // namespace kiln::cpu
