//===- image_accessors.cpp - What image and sampler values are on the CPU -===//
#include "devices/cpu/codegen/image_accessors.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

enum class Accessor { None, ImageDescriptor, SamplerBits, SamplerFromBits };

/// Which accessor `function` is; the library's are overloaded, so their names are mangled.
Accessor accessorOf(const Function &function) {
  StringRef name = function.getName();
  if (name.contains("__kiln_image_descriptor"))
    return Accessor::ImageDescriptor;
  if (name.contains("__kiln_sampler_bits"))
    return Accessor::SamplerBits;
  if (name.contains("__translate_sampler_initializer"))
    return Accessor::SamplerFromBits;
  return Accessor::None;
}

Value *meaning(Accessor accessor, CallInst &call) {
  IRBuilder<> builder(&call);
  Value *argument = call.getArgOperand(0);
  Type *result = call.getType();
  switch (accessor) {
  case Accessor::ImageDescriptor:
    return builder.CreatePointerBitCastOrAddrSpaceCast(argument, result);
  case Accessor::SamplerBits:
    return builder.CreateTrunc(builder.CreatePtrToInt(argument, builder.getInt64Ty()), result);
  default: // SamplerFromBits
    return builder.CreateIntToPtr(builder.CreateZExt(argument, builder.getInt64Ty()), result);
  }
}

} // namespace

unsigned resolveImageAccessors(Module &module) {
  unsigned replaced = 0;
  SmallVector<Function *, 8> resolved;
  for (Function &function : module) {
    Accessor accessor = accessorOf(function);
    if (accessor == Accessor::None || !function.isDeclaration())
      continue;
    SmallVector<CallInst *, 8> calls;
    for (User *user : function.users())
      if (auto *call = dyn_cast<CallInst>(user);
          call != nullptr && call->getCalledFunction() == &function)
        calls.push_back(call);
    for (CallInst *call : calls) {
      call->replaceAllUsesWith(meaning(accessor, *call));
      call->eraseFromParent();
      ++replaced;
    }
    if (function.use_empty())
      resolved.push_back(&function);
  }
  for (Function *function : resolved)
    function->eraseFromParent();
  return replaced;
}

} // namespace kiln::cpu
