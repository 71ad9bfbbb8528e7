//===- fast_float_math.cpp - PTX's fast instructions where OpenCL allows -===//
#include "devices/cuda/codegen/fast_float_math.hpp"

#include "compiler/llvm/float_accuracy.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

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

/// PTX's rsqrt.approx.f32: within 2 ulp (it is CUDA's rsqrtf), exact for zeros, infinities and
/// NaN.
Value *approximateRsqrt(IRBuilder<> &builder, Value *x) {
  return builder.CreateIntrinsic(builder.getFloatTy(), Intrinsic::nvvm_rsqrt_approx_f, {x});
}

/// Whether `function` is a builtin of one float argument (scalar or vector) whose mangled name
/// starts with `prefix`.
bool isFloatBuiltin(const Function &function, StringRef prefix) {
  return function.getName().starts_with(prefix) && function.arg_size() == 1 &&
         function.getReturnType()->getScalarType()->isFloatTy();
}

/// PTX's sqrt.approx.f32 (CUDA's sqrtf without -prec-sqrt), within OpenCL's 3 ulp for sqrt;
/// exact for zeros, infinities and NaN, subnormals kept.
Value *approximateSqrt(IRBuilder<> &builder, Value *x) {
  return builder.CreateIntrinsic(builder.getFloatTy(), Intrinsic::nvvm_sqrt_approx_f, {x});
}

/// Whether `call` calls the builtin library's sqrt of floats where OpenCL lets it be inexact:
/// the front end marks those calls with !fpmath 3.0, and leaves the mark out under
/// -cl-fp32-correctly-rounded-divide-sqrt.
bool isInexactFloatSqrtCall(const CallInst &call) {
  return compiler::isFloatSqrtCall(call) &&
         cast<FPMathOperator>(call).getFPAccuracy() >= compiler::kInexactSqrtUlps;
}

/// A fast form of a one-argument float function.
using Approximation = Value *(*)(IRBuilder<> &, Value *);

/// The fast form that replaces the whole of the library function `function`, or null: rsqrt and
/// native_rsqrt (rsqrt's vector forms call the scalar one), and native_sqrt (whose accuracy is
/// the device's own).
Approximation fastBodyOf(const Function &function) {
  if (function.getName() == "_Z5rsqrtf" || isFloatBuiltin(function, "_Z12native_rsqrt"))
    return approximateRsqrt;
  if (isFloatBuiltin(function, "_Z11native_sqrt"))
    return approximateSqrt;
  return nullptr;
}

/// Gives `function` a body of `fast` applied to each element of its one argument.
void replaceBody(Function &function, Approximation fast) {
  GlobalValue::LinkageTypes linkage = function.getLinkage();
  function.deleteBody();
  function.setLinkage(linkage);
  IRBuilder<> builder(BasicBlock::Create(function.getContext(), "", &function));
  builder.CreateRet(elementwise(builder, {function.getArg(0)},
                                [&](ArrayRef<Value *> lanes) { return fast(builder, lanes[0]); }));
}

} // namespace

void useFastRoots(Module &module) {
  for (Function &function : module) {
    if (function.isDeclaration())
      continue;
    if (Approximation fast = fastBodyOf(function)) {
      replaceBody(function, fast);
      continue;
    }
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      auto *call = dyn_cast<CallInst>(&instruction);
      if (call == nullptr || !isInexactFloatSqrtCall(*call))
        continue;
      IRBuilder<> builder(call);
      call->replaceAllUsesWith(
          elementwise(builder, {call->getArgOperand(0)},
                      [&](ArrayRef<Value *> lanes) { return approximateSqrt(builder, lanes[0]); }));
      call->eraseFromParent();
    }
  }
}

void useFastFloatMath(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      // Only divisions OpenCL lets be inexact (not under -cl-fp32-correctly-rounded-divide-sqrt).
      if (instruction.getOpcode() != Instruction::FDiv ||
          !instruction.getType()->getScalarType()->isFloatTy() ||
          cast<FPMathOperator>(instruction).getFPAccuracy() < 2.0f)
        continue;
      IRBuilder<> builder(&instruction);
      Value *numerator = instruction.getOperand(0);
      Value *denominator = instruction.getOperand(1);
      Value *replacement = nullptr;
      Value *x = nullptr;
      if (match(numerator, m_FPOne()) &&
          (match(denominator, m_Sqrt(m_Value(x))) ||
           match(denominator, m_Intrinsic<Intrinsic::nvvm_sqrt_approx_f>(m_Value(x)))))
        replacement = elementwise(builder, {x}, [&](ArrayRef<Value *> lanes) {
          return approximateRsqrt(builder, lanes[0]);
        });
      else
        replacement = elementwise(builder, {numerator, denominator}, [&](ArrayRef<Value *> lanes) {
          return builder.CreateIntrinsic(Intrinsic::nvvm_div_full, {lanes[0], lanes[1]});
        });
      instruction.replaceAllUsesWith(replacement);
      instruction.eraseFromParent();
    }
}

} // namespace kiln::cuda
