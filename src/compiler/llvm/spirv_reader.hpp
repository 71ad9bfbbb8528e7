// SPIR-V modules (clCreateProgramWithIL) to LLVM modules, as the front end makes them from
// OpenCL C: checked with SPIRV-Tools' validator, then translated by the Khronos translator in a
// process of its own (Debian's llvm-spirv-15: LLVM 22 has no SPIR-V reader, and that
// translator, built on LLVM 15 and with assertions that abort, cannot share the application's
// process), and its LLVM 15 bitcode read by LLVM 22, which upgrades it.
#pragma once

#include "compiler/frontend.hpp"
#include "compiler/spirv_module.hpp"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <span>
#include <string>

namespace kiln::compiler {

/// The module `il` means with `values` as its specialization constants, owned by `context`;
/// null, with the reasons in `log`, when `il` is not valid SPIR-V, needs what `target` lacks
/// or cannot be translated.
std::unique_ptr<llvm::Module> readSpirv(std::span<const uint8_t> il,
                                        const SpecializationValues &values,
                                        const TargetDescription &target, llvm::LLVMContext &context,
                                        std::string &log);

} // namespace kiln::compiler
