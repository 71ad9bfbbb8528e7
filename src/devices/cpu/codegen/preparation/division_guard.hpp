//===- division_guard.hpp - Integer division that never traps ------------===//
//
// OpenCL leaves the result of an integer division or remainder by zero, and of the signed
// overflow MIN / -1, undefined; it never allows the program to stop. x86's division
// instructions trap on both (SIGFPE), which would kill the application's whole process. This
// step makes every udiv, sdiv, urem and srem, scalar or vector, divide by 1 instead in those
// cases: a select on the divisor, which keeps the loops around it vectorizable and costs next
// to nothing beside the division itself. MIN / -1 then gives MIN and MIN % -1 gives 0, the
// two's complement results.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cpu {

/// Guards every integer division and remainder of `module`; returns how many it guarded.
unsigned guardIntegerDivisions(llvm::Module &module);

} // namespace kiln::cpu
