//===- opaque_type_lowering.cpp - OpenCL's opaque types as plain pointers -===//
#include "compiler/llvm/opaque_type_lowering.hpp"

#include "compiler/llvm/module_type_rewriter.hpp"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace kiln::compiler {
namespace {

/// Target extension types become `ptr`; the remapper remembers the ones it has seen.
class OpaqueTypeRemapper final : public StructuralTypeRemapper {
public:
  explicit OpaqueTypeRemapper(LLVMContext &context)
      : StructuralTypeRemapper(context, ".lowered"), pointer_(PointerType::get(context, 0)) {}

  /// The target extension types seen so far (for the constants of those types).
  const SmallVector<TargetExtType *, 4> &opaqueTypes() const { return opaqueTypes_; }

protected:
  Type *remapLeaf(Type *type) override {
    auto *opaque = dyn_cast<TargetExtType>(type);
    if (!opaque)
      return type;
    opaqueTypes_.push_back(opaque);
    return pointer_;
  }

private:
  PointerType *pointer_;
  SmallVector<TargetExtType *, 4> opaqueTypes_;
};

} // namespace

Error lowerOpaqueTypes(Module &module) {
  OpaqueTypeRemapper types(module.getContext());
  if (!moduleHasTypesToRewrite(module, types))
    return Error::success();
  // The constants an opaque type has (zeroinitializer, undef, poison) become the pointer's.
  ValueToValueMapTy values;
  PointerType *pointer = PointerType::get(module.getContext(), 0);
  for (TargetExtType *type : types.opaqueTypes()) {
    values[ConstantTargetNone::get(type)] = ConstantPointerNull::get(pointer);
    values[UndefValue::get(type)] = UndefValue::get(pointer);
    values[PoisonValue::get(type)] = PoisonValue::get(pointer);
  }
  rewriteModuleTypes(
      module, types, [](unsigned space) { return space; }, values);
  if (moduleHasTypesToRewrite(module, types))
    return createStringError(inconvertibleErrorCode(),
                             "the code generator could not lower an OpenCL opaque type");
  return Error::success();
}

} // namespace kiln::compiler
