// A CPU program prepared at build (kernel_jit.hpp) to bytes and back, for the on-disk program
// cache: a hit then needs no LLVM until a kernel first runs.
#pragma once

#include "devices/cpu/kernel_jit.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace kiln::cpu {

std::vector<std::byte> serializePreparedProgram(const PreparedProgram &prepared);

/// Null when `bytes` are not an intact serialization of this version, or describe a number of
/// kernels other than `kernelCount`.
std::optional<PreparedProgram> parsePreparedProgram(std::span<const std::byte> bytes,
                                                    size_t kernelCount);

} // namespace kiln::cpu
