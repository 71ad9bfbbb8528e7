// The register classes a device's assembly language names in the operand constraints of OpenCL
// C's GNU `asm` statements.
//
// The front end compiles for SPIR64, whose Clang target accepts only the generic register
// constraint `r`. Programs written for NVIDIA's driver name PTX's own classes (`f` for a 32-bit
// float, `d` and `l` for 64 bits, `h` for 16, `c` for 8), which that target refuses. A device
// that lists such letters (TargetDescription::inlineAssemblyRegisterClasses) has them read as
// `r`, and its code generator chooses the class again from each operand's width.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kiln::compiler {

/// `source` with each of `letters` in the operand constraints of its `asm` statements replaced by
/// `r`. Nothing else changes, and no offset moves, so diagnostics point where they would have.
/// Returns nothing when there was nothing to replace.
std::optional<std::string> readAsmRegisterClassesAsGeneric(std::string_view source,
                                                           std::string_view letters);

} // namespace kiln::compiler
