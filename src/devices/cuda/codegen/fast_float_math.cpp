//===- fast_float_math.cpp - PTX's fast instructions where OpenCL allows -===//
#include "devices/cuda/codegen/fast_float_math.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace llvm;

namespace kiln::cuda {
namespace {

/// Applies `scalar` to each element of vector operands (or once for scalars).
Value *elementwise(IRBuilder<> &builder, ArrayRef<Value *> operands,
                   function_ref<Value *(ArrayRef<Value *>)> scalar) {
  auto *vector = dyn_cast<FixedVectorType>(operands.front()->getType());
  if (vector == nullptr)
    return scalar(operands);
  Value *result = PoisonValue::get(vector);
  for (unsigned lane = 0; lane < vector->getNumElements(); ++lane) {
    SmallVector<Value *, 2> lanes;
    for (Value *operand : operands)
      lanes.push_back(builder.CreateExtractElement(operand, lane));
    result = builder.CreateInsertElement(result, scalar(lanes), lane);
  }
  return result;
}

/// 1/sqrt(x): rsqrt.approx, one Newton-Raphson step; the approximation itself where the step
/// cannot apply (x zero, infinite or not a number, where it is already exact).
Value *refinedRsqrt(IRBuilder<> &builder, Value *x) {
  Value *estimate =
      builder.CreateIntrinsic(builder.getFloatTy(), Intrinsic::nvvm_rsqrt_approx_f, {x});
  Value *half = builder.CreateFMul(estimate, ConstantFP::get(builder.getFloatTy(), 0.5));
  Value *product = builder.CreateFMul(x, estimate);
  Value *error = builder.CreateIntrinsic(
      Intrinsic::fma, {builder.getFloatTy()},
      {builder.CreateFNeg(product), estimate, ConstantFP::get(builder.getFloatTy(), 1.0)});
  Value *refined =
      builder.CreateIntrinsic(Intrinsic::fma, {builder.getFloatTy()}, {error, half, estimate});
  return builder.CreateSelect(builder.CreateFCmpUNO(refined, refined), estimate, refined);
}

bool isOne(Value *value) {
  if (auto *constant = dyn_cast<Constant>(value))
    if (Constant *splat = value->getType()->isVectorTy() ? constant->getSplatValue() : constant)
      if (auto *number = dyn_cast<ConstantFP>(splat))
        return number->isExactlyValue(1.0);
  return false;
}

/// The x of `sqrt(x)` when `value` is llvm.sqrt of floats.
Value *sqrtArgument(Value *value) {
  auto *call = dyn_cast<IntrinsicInst>(value);
  if (call == nullptr || call->getIntrinsicID() != Intrinsic::sqrt)
    return nullptr;
  return call->getArgOperand(0);
}

} // namespace

void useFastFloatMath(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      if (instruction.getOpcode() != Instruction::FDiv ||
          !instruction.getType()->getScalarType()->isFloatTy())
        continue;
      IRBuilder<> builder(&instruction);
      Value *numerator = instruction.getOperand(0);
      Value *denominator = instruction.getOperand(1);
      Value *replacement = nullptr;
      if (Value *x = sqrtArgument(denominator); x != nullptr && isOne(numerator))
        replacement = elementwise(
            builder, {x}, [&](ArrayRef<Value *> lanes) { return refinedRsqrt(builder, lanes[0]); });
      if (replacement == nullptr)
        continue;
      instruction.replaceAllUsesWith(replacement);
      instruction.eraseFromParent();
    }
}

} // namespace kiln::cuda
