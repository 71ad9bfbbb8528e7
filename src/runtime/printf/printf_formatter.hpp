// The host side of OpenCL C printf: the records a launch wrote into its printf buffer become the
// text the kernel's printf calls print. Any device's driver can use it.
#pragma once

#include "compiler/program_info.hpp"

#include <cstddef>
#include <span>
#include <string>

namespace kiln {

/// The text of the printf records in `records` (layout: compiler/printf_format.hpp), in their
/// order, formatted as the host's C library would with the "C" locale, vector elements separated
/// by commas. `callSites` is the program's table (ProgramInfo::printfCalls). A record that does
/// not parse ends the output: damaged data never crashes the host.
std::string formatPrintfRecords(std::span<const std::byte> records,
                                std::span<const compiler::PrintfCallSite> callSites);

} // namespace kiln
