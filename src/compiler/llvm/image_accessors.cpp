//===- image_accessors.cpp - What image and sampler values are -------------===//
#include "compiler/llvm/image_accessors.hpp"

#include "compiler/llvm/direct_calls.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::compiler {
namespace {

enum class Accessor {
  None,
  ImageDescriptor,
  SamplerBits,     // also a queue's and an event's
  SamplerFromBits, // likewise
  TextureHardware,
  TextureRead
};

/// Which accessor `function` is; the library's are overloaded, so their names are mangled.
Accessor accessorOf(const Function &function) {
  StringRef name = function.getName();
  // A pipe, like an image, is the address of its storage, and a reserve id, like a sampler, its
  // bits (builtins/pipes.cl).
  if (name.contains("__kiln_image_descriptor") || name.contains("__kiln_pipe_storage"))
    return Accessor::ImageDescriptor;
  // Samplers, reserve ids, device queues and device events are bits held in the pointer.
  if (name.contains("__kiln_sampler_bits") || name.contains("__kiln_reserve_id_bits") ||
      name.contains("__kiln_queue_bits") || name.contains("__kiln_event_bits"))
    return Accessor::SamplerBits;
  if (name.contains("__translate_sampler_initializer") ||
      name.contains("__kiln_reserve_id_from_bits") || name.contains("__kiln_queue_from_bits") ||
      name.contains("__kiln_event_from_bits"))
    return Accessor::SamplerFromBits;
  if (name.contains("__kiln_texture_hardware"))
    return Accessor::TextureHardware;
  if (isTextureRead(function))
    return Accessor::TextureRead;
  return Accessor::None;
}

/// What `call` of `accessor` stands for; null when the call stays (a texture read on a device
/// with texture hardware, which its code generator lowers).
Value *meaning(Accessor accessor, CallInst &call, bool textureHardware) {
  IRBuilder<> builder(&call);
  Type *result = call.getType();
  if (accessor == Accessor::TextureHardware)
    return ConstantInt::get(result, textureHardware ? 1 : 0);
  if (accessor == Accessor::TextureRead)
    return textureHardware ? nullptr : PoisonValue::get(result);
  Value *argument = call.getArgOperand(0);
  switch (accessor) {
  case Accessor::ImageDescriptor:
    return builder.CreatePointerBitCastOrAddrSpaceCast(argument, result);
  case Accessor::SamplerBits:
    return builder.CreateZExtOrTrunc(builder.CreatePtrToInt(argument, builder.getInt64Ty()),
                                     result);
  default: // SamplerFromBits
    return builder.CreateIntToPtr(builder.CreateZExtOrTrunc(argument, builder.getInt64Ty()),
                                  result);
  }
}

} // namespace

bool isTextureRead(const Function &function) {
  StringRef name = function.getName();
  return name.contains("__kiln_texture_") && !name.contains("__kiln_texture_hardware");
}

unsigned resolveImageAccessors(Module &module, bool textureHardware) {
  unsigned replaced = 0;
  SmallVector<Function *, 8> resolved;
  for (Function &function : module) {
    Accessor accessor = accessorOf(function);
    if (accessor == Accessor::None || !function.isDeclaration())
      continue;
    for (CallInst *call : directCallsOf(function)) {
      Value *replacement = meaning(accessor, *call, textureHardware);
      if (replacement == nullptr)
        continue;
      call->replaceAllUsesWith(replacement);
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

} // namespace kiln::compiler
