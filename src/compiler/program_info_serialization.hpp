// ProgramInfo as bytes and back, without LLVM: the on-disk program cache stores it beside the
// module so that a build served from the cache never loads the compiler library.
#pragma once

#include "compiler/byte_stream.hpp"
#include "compiler/program_info.hpp"

#include <optional>

namespace kiln::compiler {

/// Appends `info`, with a format version, to `out`.
void writeProgramInfo(ByteWriter &out, const ProgramInfo &info);

/// Reads what writeProgramInfo wrote. Null (and `in` failed) when the version differs or the
/// bytes are damaged: sizes past the end, values no field can hold.
std::optional<ProgramInfo> readProgramInfo(ByteReader &in);

} // namespace kiln::compiler
