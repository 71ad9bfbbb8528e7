// OpenCL C printf for any device: each call in an executable becomes a record in the launch's
// printf buffer (layout: compiler/printf_format.hpp), reserved through a primitive the device
// code generator implements; the host formats the records when the launch completes. The
// program's call sites (formats and argument kinds) stay in the module, so a program loaded
// from a binary finds them again.
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace kiln::compiler {

/// The primitive that reserves a record: `ptr addrspace(1) __kiln_printf_alloc(i64 size)`,
/// returning the record's address, or null when the buffer has no room left for it.
inline constexpr llvm::StringLiteral kPrintfAllocPrimitive = "__kiln_printf_alloc";

/// Rewrites every call of printf in `module` (an executable being linked) into: measure the %s
/// strings, reserve the record, store the arguments; the call's value becomes 0, or -1 when no
/// record could be reserved. Returns false, with the reasons in `log`, when a call cannot be
/// rewritten (a format that is not a string literal, an argument printf cannot print).
bool lowerPrintfCalls(llvm::Module &module, std::string &log);

/// The call sites lowerPrintfCalls recorded in `module`, by call site number.
std::vector<PrintfCallSite> printfCallSites(const llvm::Module &module);

} // namespace kiln::compiler
