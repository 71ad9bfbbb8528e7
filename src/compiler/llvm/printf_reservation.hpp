//===- printf_reservation.hpp - Records in a launch's printf buffer ------===//
//
// The printf lowering (printf_lowering.hpp) leaves each printf call reserving its record with
// __kiln_printf_alloc(size). A device's code generator replaces those calls with calls of the
// function made here, which reserves the bytes in the launch's compiler::PrintfBuffer.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// `recordType (bufferType buffer, i64 size)`: reserves `size` bytes of `buffer` (a
/// PrintfBuffer) for one record; null when they do not fit or `buffer` is null. Work-items of all
/// work-groups reserve concurrently: a compare-and-swap loop on PrintfBuffer::used.
llvm::Function *printfReservationFunction(llvm::Module &module, llvm::PointerType *recordType,
                                          llvm::PointerType *bufferType);

} // namespace kiln::compiler
