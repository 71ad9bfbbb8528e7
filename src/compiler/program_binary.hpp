// Kiln's program binary (CL_PROGRAM_BINARIES / clCreateProgramWithBinary): a small header that
// names the kind of binary and the compiler target it was made for, a checksum that catches
// corruption before anything parses the contents, the build options, and the LLVM bitcode.
#pragma once

#include "compiler/frontend.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace kiln::compiler {

struct ProgramBinary {
  cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
  std::string target; // the compiler target triple it was made for
  std::string options;
  Bitcode module;
};

std::vector<uint8_t> serializeProgramBinary(const ProgramBinary &binary);

/// Null when `bytes` is not an intact Kiln binary (wrong magic, version, size or checksum).
std::optional<ProgramBinary> parseProgramBinary(std::span<const uint8_t> bytes);

} // namespace kiln::compiler
