//===- opaque_type_lowering.cpp - OpenCL's opaque types as plain pointers -===//
//
// Functions whose signature changes are recreated under the same name with the body moved
// over; everything else is remapped in place by LLVM's ValueMapper with a type remapper, which
// rewrites the types of instructions, allocas, GEPs and calls, and rebuilds constants.
//
//===----------------------------------------------------------------------===//
#include "devices/cpu/codegen/opaque_type_lowering.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// Maps every type that contains a target extension type to the same type with `ptr` in its
/// place; other types map to themselves.
class OpaqueTypeRemapper final : public ValueMapTypeRemapper {
public:
  explicit OpaqueTypeRemapper(LLVMContext &context)
      : context_(context), pointer_(PointerType::get(context, 0)) {}

  Type *remapType(Type *type) override {
    auto found = cache_.find(type);
    if (found != cache_.end())
      return found->second;
    Type *lowered = lower(type);
    cache_[type] = lowered;
    return lowered;
  }

  bool changes(Type *type) { return remapType(type) != type; }

  /// The target extension types seen so far (for the constants of those types).
  const SmallVector<TargetExtType *, 4> &opaqueTypes() const { return opaqueTypes_; }

private:
  Type *lower(Type *type) {
    if (auto *opaque = dyn_cast<TargetExtType>(type)) {
      opaqueTypes_.push_back(opaque);
      return pointer_;
    }
    if (auto *array = dyn_cast<ArrayType>(type))
      return rebuildIfChanged(
          array, [&](Type *element) { return ArrayType::get(element, array->getNumElements()); });
    if (auto *vector = dyn_cast<VectorType>(type))
      return rebuildIfChanged(vector, [&](Type *element) {
        return VectorType::get(element, vector->getElementCount());
      });
    if (auto *function = dyn_cast<FunctionType>(type))
      return lowerFunctionType(function);
    if (auto *structure = dyn_cast<StructType>(type))
      return lowerStructType(structure);
    return type;
  }

  template <typename Rebuild> Type *rebuildIfChanged(Type *type, Rebuild rebuild) {
    Type *element = type->getContainedType(0);
    Type *lowered = remapType(element);
    return lowered == element ? type : rebuild(lowered);
  }

  Type *lowerFunctionType(FunctionType *function) {
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

  Type *lowerStructType(StructType *structure) {
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
    return StructType::create(context_, elements, (structure->getName() + ".lowered").str(),
                              structure->isPacked());
  }

  LLVMContext &context_;
  PointerType *pointer_;
  DenseMap<Type *, Type *> cache_;
  SmallVector<TargetExtType *, 4> opaqueTypes_;
};

/// Whether anything in `instruction` has a type the remapper changes.
bool instructionNeedsLowering(const Instruction &instruction, OpaqueTypeRemapper &types) {
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

/// Visits every type in `module` (so the remapper sees every opaque type) and returns whether
/// any of them needs lowering.
bool moduleNeedsLowering(Module &module, OpaqueTypeRemapper &types) {
  bool needed = false;
  for (GlobalVariable &variable : module.globals())
    needed |= types.changes(variable.getValueType());
  for (Function &function : module) {
    needed |= types.changes(function.getFunctionType());
    for (Instruction &instruction : instructions(function))
      needed |= instructionNeedsLowering(instruction, types);
  }
  return needed;
}

class OpaqueTypeLowering {
public:
  explicit OpaqueTypeLowering(Module &module) : module_(module), types_(module.getContext()) {}

  Error run() {
    if (!moduleNeedsLowering(module_, types_))
      return Error::success();
    mapOpaqueConstants();
    replaceGlobalVariables();
    replaceFunctionsWithNewSignatures();
    for (Function &function : module_)
      if (!function.isDeclaration())
        RemapFunction(function, values_, RF_IgnoreMissingLocals, &types_);
    for (GlobalVariable &variable : module_.globals())
      if (variable.hasInitializer())
        variable.setInitializer(
            MapValue(variable.getInitializer(), values_, RF_IgnoreMissingLocals, &types_));
    for (GlobalValue *replaced : replaced_)
      replaced->eraseFromParent();
    if (moduleNeedsLowering(module_, types_))
      return createStringError(inconvertibleErrorCode(),
                               "the CPU code generator could not lower an OpenCL opaque type");
    return Error::success();
  }

private:
  /// The constants an opaque type has (zeroinitializer, undef, poison) become the pointer's.
  void mapOpaqueConstants() {
    PointerType *pointer = PointerType::get(module_.getContext(), 0);
    for (TargetExtType *type : types_.opaqueTypes()) {
      values_[ConstantTargetNone::get(type)] = ConstantPointerNull::get(pointer);
      values_[UndefValue::get(type)] = UndefValue::get(pointer);
      values_[PoisonValue::get(type)] = PoisonValue::get(pointer);
    }
  }

  void replaceGlobalVariables() {
    SmallVector<GlobalVariable *, 4> opaque;
    for (GlobalVariable &variable : module_.globals())
      if (types_.changes(variable.getValueType()))
        opaque.push_back(&variable);
    for (GlobalVariable *variable : opaque) {
      auto *lowered = new GlobalVariable(
          module_, types_.remapType(variable->getValueType()), variable->isConstant(),
          variable->getLinkage(), nullptr, "", nullptr, variable->getThreadLocalMode(),
          variable->getAddressSpace(), variable->isExternallyInitialized());
      lowered->copyAttributesFrom(variable);
      lowered->takeName(variable);
      if (variable->hasInitializer())
        lowered->setInitializer(
            MapValue(variable->getInitializer(), values_, RF_IgnoreMissingLocals, &types_));
      // Both are pointers, whatever their value types: uses can move over as they are.
      variable->replaceAllUsesWith(lowered);
      variable->setInitializer(nullptr);
      replaced_.push_back(variable);
    }
  }

  void replaceFunctionsWithNewSignatures() {
    SmallVector<Function *, 8> opaque;
    for (Function &function : module_)
      if (types_.changes(function.getFunctionType()))
        opaque.push_back(&function);
    for (Function *function : opaque) {
      auto *type = cast<FunctionType>(types_.remapType(function->getFunctionType()));
      Function *lowered =
          Function::Create(type, function->getLinkage(), function->getAddressSpace(), "", &module_);
      lowered->copyAttributesFrom(function);
      lowered->copyMetadata(function, 0);
      lowered->takeName(function);
      lowered->splice(lowered->end(), function);
      for (auto [from, to] : zip(function->args(), lowered->args())) {
        to.takeName(&from);
        values_[&from] = &to;
      }
      function->replaceAllUsesWith(lowered);
      replaced_.push_back(function);
    }
  }

  Module &module_;
  OpaqueTypeRemapper types_;
  ValueToValueMapTy values_;
  SmallVector<GlobalValue *, 8> replaced_;
};

} // namespace

Error lowerOpaqueTypes(Module &module) {
  return OpaqueTypeLowering(module).run();
}

} // namespace kiln::cpu
