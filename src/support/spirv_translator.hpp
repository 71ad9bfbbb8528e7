// Where the Khronos SPIR-V translator that reads SPIR-V programs is: the runtime lists SPIR-V
// among a device's ILs only when there is one, and the compiler runs it.
#pragma once

#include <optional>
#include <string>

namespace kiln {

/// The translator to run: KILN_SPIRV_TRANSLATOR when set; else an `llvm-spirv` beside the
/// library this code is in (where a portable bundle puts its own, or a wrapper that finds its
/// libraries); else the one the build found (Debian's llvm-spirv-15). Nothing when none of these
/// is an executable file.
std::optional<std::string> spirvTranslatorPath();

} // namespace kiln
