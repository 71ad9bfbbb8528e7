// What the Khronos SPIR-V translator (Debian's llvm-spirv-15, which Kiln runs to read SPIR-V)
// is given: the module rewritten, without changing its meaning, where that translator cannot
// read a construct valid SPIR-V may contain.
#pragma once

#include "compiler/spirv_module.hpp"

namespace kiln::compiler {

/// `module` with what the translator lacks expressed in what it has:
///  - OpConstantNull of a scalar (it asserts; Clang's SPIR-V back end emits it) becomes the
///    scalar's zero constant;
///  - SPIR-V 1.4's OpPtrEqual, OpPtrNotEqual and OpPtrDiff become integer operations on the
///    pointers' addresses, and OpCopyLogical a copy member by member;
///  - OpCopyMemory becomes a load and a store; OpCopyMemorySized's second set of memory
///    operands (1.4: the source's) is dropped, as are UserSemantic strings (OpDecorateString),
///    which have no meaning for execution.
SpirvModule rewriteForTranslator(const SpirvModule &module);

} // namespace kiln::compiler
