//===- asm_register_classes.hpp - PTX register classes of asm operands --===//
//
// The front end reads the PTX register classes an `asm` statement names (`f`, `d`, `l`, `h`,
// `c`) as the generic `r` (ptx_register_classes.hpp), and NVPTX gives `r` a 32-bit register
// whatever the operand: a 64-bit operand would lose half its bits. This step gives each `r`
// operand of the module's inline assembly the class of its width (`c`, `h`, `r` or `l`; PTX's
// registers are untyped bits, so a float's `f` and a double's `d` are the same classes as `r`
// and `l`). Other constraints are left as written.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cuda {

/// Returns whether it changed any inline assembly.
bool choosePtxRegisterClasses(llvm::Module &module);

} // namespace kiln::cuda
