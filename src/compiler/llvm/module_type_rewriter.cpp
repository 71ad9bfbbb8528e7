//===- module_type_rewriter.cpp - Rewrite every type of a module ---------===//
//
// Functions and global variables whose types change are recreated under the same name with the
// body moved over and mapped to their replacements; everything else is remapped in place by
// LLVM's ValueMapper with the type remapper, which rewrites the types of instructions, allocas,
// GEPs and calls, and rebuilds constants.
//
//===----------------------------------------------------------------------===//
#include "compiler/llvm/module_type_rewriter.hpp"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::compiler {

Type *StructuralTypeRemapper::remapType(Type *type) {
  auto found = cache_.find(type);
  if (found != cache_.end())
    return found->second;
  Type *remapped = rebuild(type);
  cache_[type] = remapped;
  return remapped;
}

Type *StructuralTypeRemapper::rebuild(Type *type) {
  if (auto *array = dyn_cast<ArrayType>(type)) {
    Type *element = remapType(array->getElementType());
    return element == array->getElementType() ? type
                                              : ArrayType::get(element, array->getNumElements());
  }
  if (auto *vector = dyn_cast<VectorType>(type)) {
    Type *element = remapType(vector->getElementType());
    return element == vector->getElementType()
               ? type
               : VectorType::get(element, vector->getElementCount());
  }
  if (auto *function = dyn_cast<FunctionType>(type))
    return rebuildFunctionType(function);
  if (auto *structure = dyn_cast<StructType>(type))
    return rebuildStructType(structure);
  return remapLeaf(type);
}

Type *StructuralTypeRemapper::rebuildFunctionType(FunctionType *function) {
  bool changed = false;
  SmallVector<Type *, 8> parameters;
  for (Type *parameter : function->params()) {
    parameters.push_back(remapType(parameter));
    changed |= parameters.back() != parameter;
  }
  Type *result = remapType(function->getReturnType());
  changed |= result != function->getReturnType();
  return changed ? FunctionType::get(result, parameters, function->isVarArg()) : function;
}

Type *StructuralTypeRemapper::rebuildStructType(StructType *structure) {
  if (structure->isOpaque())
    return structure;
  bool changed = false;
  SmallVector<Type *, 8> elements;
  for (Type *element : structure->elements()) {
    elements.push_back(remapType(element));
    changed |= elements.back() != element;
  }
  if (!changed)
    return structure;
  if (structure->isLiteral())
    return StructType::get(context_, elements, structure->isPacked());
  return StructType::create(context_, elements, (structure->getName() + structSuffix_).str(),
                            structure->isPacked());
}

namespace {

/// Whether anything in `instruction` has a type the remapper changes.
bool instructionHasTypesToRewrite(const Instruction &instruction, StructuralTypeRemapper &types) {
  if (types.changes(instruction.getType()))
    return true;
  for (const Value *operand : instruction.operands())
    if (types.changes(operand->getType()))
      return true;
  if (auto *alloca = dyn_cast<AllocaInst>(&instruction))
    return types.changes(alloca->getAllocatedType());
  if (auto *gep = dyn_cast<GetElementPtrInst>(&instruction))
    return types.changes(gep->getSourceElementType());
  if (auto *call = dyn_cast<CallBase>(&instruction))
    return types.changes(call->getFunctionType());
  return false;
}

/// The parameter and return attributes that name a type (byval(T), sret(T), ...) with T
/// remapped.
AttributeList remapTypeAttributes(LLVMContext &context, AttributeList attributes,
                                  StructuralTypeRemapper &types) {
  for (unsigned index : attributes.indexes()) {
    for (Attribute attribute : attributes.getAttributes(index)) {
      if (!attribute.isTypeAttribute() || !attribute.getValueAsType())
        continue;
      Type *remapped = types.remapType(attribute.getValueAsType());
      if (remapped == attribute.getValueAsType())
        continue;
      attributes = attributes.removeAttributeAtIndex(context, index, attribute.getKindAsEnum());
      attributes = attributes.addAttributeAtIndex(
          context, index, Attribute::get(context, attribute.getKindAsEnum(), remapped));
    }
  }
  return attributes;
}

class ModuleTypeRewrite {
public:
  ModuleTypeRewrite(Module &module, StructuralTypeRemapper &types,
                    function_ref<unsigned(unsigned)> addressSpaceOf, ValueToValueMapTy &values)
      : module_(module), types_(types), addressSpaceOf_(addressSpaceOf), values_(values) {}

  void run() {
    replaceGlobalVariables();
    replaceFunctions();
    for (Function &function : module_) {
      if (function.isDeclaration())
        continue;
      RemapFunction(function, values_, RF_IgnoreMissingLocals, &types_);
      for (Instruction &instruction : instructions(function))
        if (auto *call = dyn_cast<CallBase>(&instruction))
          call->setAttributes(
              remapTypeAttributes(module_.getContext(), call->getAttributes(), types_));
    }
    // (The ValueMapper records every global it meets as mapping to itself: the variables this
    // rewrite replaces are those in replaced_.)
    for (GlobalVariable &variable : module_.globals())
      if (variable.hasInitializer() && !is_contained(replaced_, &variable))
        variable.setInitializer(
            MapValue(variable.getInitializer(), values_, RF_IgnoreMissingLocals, &types_));
    for (auto [variable, initializer] : pendingInitializers_)
      variable->setInitializer(MapValue(initializer, values_, RF_IgnoreMissingLocals, &types_));
    for (GlobalValue *replaced : replaced_) {
      if (auto *variable = dyn_cast<GlobalVariable>(replaced))
        variable->setInitializer(nullptr);
      // What the remapping did not reach (metadata) follows the replacement where the types
      // allow it.
      Value *replacement = values_[replaced];
      replaced->replaceAllUsesWith(replacement->getType() == replaced->getType()
                                       ? replacement
                                       : PoisonValue::get(replaced->getType()));
      replaced->eraseFromParent();
    }
  }

private:
  bool globalChanges(const GlobalVariable &variable) {
    return types_.changes(variable.getValueType()) ||
           addressSpaceOf_(variable.getAddressSpace()) != variable.getAddressSpace();
  }

  void replaceGlobalVariables() {
    SmallVector<GlobalVariable *, 4> changing;
    for (GlobalVariable &variable : module_.globals())
      if (globalChanges(variable))
        changing.push_back(&variable);
    for (GlobalVariable *variable : changing) {
      auto *rewritten = new GlobalVariable(
          module_, types_.remapType(variable->getValueType()), variable->isConstant(),
          variable->getLinkage(), nullptr, "", nullptr, variable->getThreadLocalMode(),
          addressSpaceOf_(variable->getAddressSpace()), variable->isExternallyInitialized());
      rewritten->copyAttributesFrom(variable);
      rewritten->takeName(variable);
      if (variable->hasInitializer())
        pendingInitializers_.emplace_back(rewritten, variable->getInitializer());
      values_[variable] = rewritten;
      replaced_.push_back(variable);
    }
  }

  void replaceFunctions() {
    SmallVector<Function *, 8> changing;
    for (Function &function : module_)
      if (types_.changes(function.getFunctionType()))
        changing.push_back(&function);
    for (Function *function : changing) {
      auto *type = cast<FunctionType>(types_.remapType(function->getFunctionType()));
      // Created under its name, not given it afterwards: an intrinsic is recognised by name
      // when it is created.
      std::string name = function->getName().str();
      function->setName("");
      Function *rewritten = Function::Create(type, function->getLinkage(),
                                             function->getAddressSpace(), name, &module_);
      rewritten->copyAttributesFrom(function);
      rewritten->setAttributes(
          remapTypeAttributes(module_.getContext(), function->getAttributes(), types_));
      rewritten->copyMetadata(function, 0);
      rewritten->splice(rewritten->end(), function);
      for (auto [from, to] : zip(function->args(), rewritten->args())) {
        to.takeName(&from);
        values_[&from] = &to;
      }
      values_[function] = rewritten;
      replaced_.push_back(function);
    }
  }

  Module &module_;
  StructuralTypeRemapper &types_;
  function_ref<unsigned(unsigned)> addressSpaceOf_;
  ValueToValueMapTy &values_;
  SmallVector<GlobalValue *, 8> replaced_;
  /// The old initializers of recreated variables, set once every replacement is known.
  SmallVector<std::pair<GlobalVariable *, Constant *>, 4> pendingInitializers_;
};

} // namespace

bool moduleHasTypesToRewrite(Module &module, StructuralTypeRemapper &types) {
  bool found = false;
  for (GlobalVariable &variable : module.globals())
    found |= types.changes(variable.getValueType()) || types.changes(variable.getType());
  for (Function &function : module) {
    found |= types.changes(function.getFunctionType());
    for (Instruction &instruction : instructions(function))
      found |= instructionHasTypesToRewrite(instruction, types);
  }
  return found;
}

void rewriteModuleTypes(Module &module, StructuralTypeRemapper &types,
                        function_ref<unsigned(unsigned)> addressSpaceOf,
                        ValueToValueMapTy &values) {
  ModuleTypeRewrite(module, types, addressSpaceOf, values).run();
}

} // namespace kiln::compiler
