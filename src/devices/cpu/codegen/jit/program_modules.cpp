//===- program_modules.cpp - The modules the CPU's JIT keeps and builds ---===//
#include "devices/cpu/codegen/jit/program_modules.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kiln::cpu {

Expected<std::unique_ptr<Module>> parseModule(const compiler::Bitcode &bitcode,
                                              LLVMContext &context) {
  MemoryBufferRef buffer(StringRef(reinterpret_cast<const char *>(bitcode.data()), bitcode.size()),
                         "program");
  return parseBitcodeFile(buffer, context);
}

compiler::Bitcode writeModule(const Module &module) {
  SmallVector<char, 0> bytes;
  raw_svector_ostream stream(bytes);
  WriteBitcodeToFile(module, stream);
  return compiler::Bitcode(bytes.begin(), bytes.end());
}

bool verifyModuleText(const Module &module, std::string &problems) {
  raw_string_ostream stream(problems);
  return verifyModule(module, &stream);
}

void keepOnlyWorkGroupFunctions(Module &module, const SmallPtrSetImpl<Function *> &prepared) {
  for (Function &function : module)
    if (!function.isDeclaration() && !prepared.contains(&function))
      function.deleteBody(); // inlined into the work-group functions
  for (Function &function : make_early_inc_range(module))
    if (function.isDeclaration() && function.use_empty())
      function.eraseFromParent();
  unsigned index = 0;
  for (GlobalVariable &variable : make_early_inc_range(module.globals())) {
    variable.removeDeadConstantUsers();
    if (variable.use_empty() && variable.getAddressSpace() == compiler::spir::kLocalAddressSpace) {
      variable.eraseFromParent(); // placed in the work-group's local memory
      continue;
    }
    if (!variable.hasInitializer())
      continue;
    variable.setName("__kiln_program_variable." + Twine(index++));
    variable.setLinkage(GlobalValue::ExternalLinkage);
    variable.setVisibility(GlobalValue::DefaultVisibility);
  }
}

void keepOnlyVariables(Module &module) {
  for (Function &function : module)
    function.deleteBody();
  for (Function &function : make_early_inc_range(module))
    function.eraseFromParent();
}

void isolateWorkGroupFunction(Module &module, Function &kept) {
  for (Function &function : module)
    if (&function != &kept && !function.isDeclaration())
      function.deleteBody();
  for (GlobalVariable &variable : module.globals()) {
    if (!variable.hasInitializer())
      continue;
    if (variable.isConstant()) {
      variable.setLinkage(GlobalValue::InternalLinkage);
    } else {
      variable.setInitializer(nullptr);
      variable.setLinkage(GlobalValue::ExternalLinkage);
    }
  }
}

} // namespace kiln::cpu
