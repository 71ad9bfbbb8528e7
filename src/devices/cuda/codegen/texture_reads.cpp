//===- texture_reads.cpp - The builtin library's texture reads as PTX tex -===//
#include "devices/cuda/codegen/texture_reads.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/direct_calls.hpp"
#include "compiler/llvm/image_accessors.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace llvm;

namespace kiln::cuda {
namespace {

enum class Result { Float, Signed, Unsigned };

/// The image shapes of the builtin library (KILN_SHAPE_*).
enum Shape : uint64_t { Shape1D = 1, Shape2D = 2, Shape3D = 3, Shape1DArray = 5, Shape2DArray = 6 };

std::optional<Result> textureReadOf(const Function &function) {
  if (!function.isDeclaration() || !compiler::isTextureRead(function))
    return std::nullopt;
  StringRef name = function.getName();
  if (name.contains("__kiln_texture_ui"))
    return Result::Unsigned;
  if (name.contains("__kiln_texture_i"))
    return Result::Signed;
  return Result::Float;
}

/// The tex.unified intrinsic for `shape` returning `result`, with float coordinates.
std::optional<Intrinsic::ID> intrinsicFor(uint64_t shape, Result result) {
  auto pick = [result](Intrinsic::ID f32, Intrinsic::ID s32, Intrinsic::ID u32) {
    return result == Result::Float ? f32 : result == Result::Signed ? s32 : u32;
  };
  switch (shape) {
  case Shape1D:
    return pick(Intrinsic::nvvm_tex_unified_1d_v4f32_f32, Intrinsic::nvvm_tex_unified_1d_v4s32_f32,
                Intrinsic::nvvm_tex_unified_1d_v4u32_f32);
  case Shape2D:
    return pick(Intrinsic::nvvm_tex_unified_2d_v4f32_f32, Intrinsic::nvvm_tex_unified_2d_v4s32_f32,
                Intrinsic::nvvm_tex_unified_2d_v4u32_f32);
  case Shape3D:
    return pick(Intrinsic::nvvm_tex_unified_3d_v4f32_f32, Intrinsic::nvvm_tex_unified_3d_v4s32_f32,
                Intrinsic::nvvm_tex_unified_3d_v4u32_f32);
  case Shape1DArray:
    return pick(Intrinsic::nvvm_tex_unified_1d_array_v4f32_f32,
                Intrinsic::nvvm_tex_unified_1d_array_v4s32_f32,
                Intrinsic::nvvm_tex_unified_1d_array_v4u32_f32);
  case Shape2DArray:
    return pick(Intrinsic::nvvm_tex_unified_2d_array_v4f32_f32,
                Intrinsic::nvvm_tex_unified_2d_array_v4s32_f32,
                Intrinsic::nvvm_tex_unified_2d_array_v4u32_f32);
  default:
    return std::nullopt;
  }
}

/// The intrinsic's operands after the texture: the layer (an integer) first for arrays, then
/// the spatial coordinates.
SmallVector<Value *, 4> coordinateOperands(IRBuilder<> &builder, uint64_t shape, Value *coord) {
  auto component = [&](unsigned index) { return builder.CreateExtractElement(coord, index); };
  switch (shape) {
  case Shape1D:
    return {component(0)};
  case Shape2D:
    return {component(0), component(1)};
  case Shape3D:
    return {component(0), component(1), component(2)};
  case Shape1DArray:
    return {builder.CreateFPToSI(component(1), builder.getInt32Ty()), component(0)};
  default: // Shape2DArray
    return {builder.CreateFPToSI(component(2), builder.getInt32Ty()), component(0), component(1)};
  }
}

Error lowerCall(CallInst &call, Result result) {
  auto *shape = dyn_cast<ConstantInt>(call.getArgOperand(1));
  std::optional<Intrinsic::ID> intrinsic =
      shape != nullptr ? intrinsicFor(shape->getZExtValue(), result) : std::nullopt;
  if (!intrinsic)
    return compiler::codegenError(
        "a texture read of an unknown image shape reached the GPU code generator");
  IRBuilder<> builder(&call);
  SmallVector<Value *, 4> operands{call.getArgOperand(0)};
  operands.append(coordinateOperands(builder, shape->getZExtValue(), call.getArgOperand(2)));
  Value *channels = builder.CreateIntrinsic(*intrinsic, {}, operands);
  // The intrinsic returns a struct of four; the library wants a vector.
  Value *vector = PoisonValue::get(call.getType());
  for (unsigned index = 0; index < 4; ++index)
    vector =
        builder.CreateInsertElement(vector, builder.CreateExtractValue(channels, index), index);
  call.replaceAllUsesWith(vector);
  call.eraseFromParent();
  return Error::success();
}

} // namespace

Error lowerTextureReads(Module &module) {
  SmallVector<Function *, 4> lowered;
  for (Function &function : module) {
    std::optional<Result> result = textureReadOf(function);
    if (!result)
      continue;
    for (CallInst *call : compiler::directCallsOf(function))
      if (Error error = lowerCall(*call, *result))
        return error;
    if (function.use_empty())
      lowered.push_back(&function);
  }
  for (Function *function : lowered)
    function->eraseFromParent();
  return Error::success();
}

} // namespace kiln::cuda
