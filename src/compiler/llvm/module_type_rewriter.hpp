//===- module_type_rewriter.hpp - Rewrite every type of a module ---------===//
//
// Device code generators change types across a whole module: the CPU turns OpenCL's opaque
// types into pointers, the GPU renumbers address spaces. Both are the same walk: a rule for the
// leaf types (StructuralTypeRemapper::remapLeaf), applied through arrays, vectors, structs and
// function types, then every global variable, function and instruction rewritten in place.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace kiln::compiler {

/// Maps every type whose leaves the rule changes to the same structure over the new leaves;
/// other types map to themselves. Identified structs that change are recreated with `suffix`.
class StructuralTypeRemapper : public llvm::ValueMapTypeRemapper {
public:
  StructuralTypeRemapper(llvm::LLVMContext &context, llvm::StringRef structSuffix)
      : context_(context), structSuffix_(structSuffix) {}

  llvm::Type *remapType(llvm::Type *type) final;
  bool changes(llvm::Type *type) { return remapType(type) != type; }

protected:
  /// The rule for a type that is not an array, vector, struct or function type.
  virtual llvm::Type *remapLeaf(llvm::Type *type) = 0;
  llvm::LLVMContext &context() const { return context_; }

private:
  llvm::Type *rebuild(llvm::Type *type);
  llvm::Type *rebuildFunctionType(llvm::FunctionType *function);
  llvm::Type *rebuildStructType(llvm::StructType *structure);

  llvm::LLVMContext &context_;
  std::string structSuffix_;
  llvm::DenseMap<llvm::Type *, llvm::Type *> cache_;
};

/// Rewrites `module` through `types`. Global variables and functions whose types change are
/// recreated under the same names; a global variable moves to `addressSpaceOf(old space)`.
/// `values` may hold replacements decided beforehand (constants of types that disappear).
/// Afterwards no value of the module has a type the remapper changes.
void rewriteModuleTypes(llvm::Module &module, StructuralTypeRemapper &types,
                        llvm::function_ref<unsigned(unsigned)> addressSpaceOf,
                        llvm::ValueToValueMapTy &values);

/// Whether any type in `module` is one the remapper changes (visiting them all).
bool moduleHasTypesToRewrite(llvm::Module &module, StructuralTypeRemapper &types);

} // namespace kiln::compiler
