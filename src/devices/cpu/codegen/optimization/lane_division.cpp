//===- lane_division.cpp - Lanes divided by one divisor --------------------===//
#include "devices/cpu/codegen/optimization/lane_division.hpp"

#include "devices/cpu/codegen/ir_utilities/run_time_divisor.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// For a 32-bit divisor d: q = (t + ((n - t) >> firstShift)) >> secondShift, where t is the high
/// half of multiplier * n, is n / d for every 32-bit n. With l = ceil(log2 d): the multiplier
/// is floor(2^32 (2^l - d) / d) + 1, which fits 32 bits; the shifts are 1 and l - 1, or both 0
/// when d is 1.
struct Reciprocal {
  Value *multiplier;  // i32
  Value *firstShift;  // i32
  Value *secondShift; // i32
};

Reciprocal reciprocalOf(IRBuilder<> &builder, Value *divisor) {
  Type *i32 = builder.getInt32Ty();
  Type *i64 = builder.getInt64Ty();
  // A zero divisor (undefined in OpenCL C; the division guard has usually made it 1 already)
  // divides as 1 rather than trapping here.
  Value *isZero = builder.CreateICmpEQ(divisor, ConstantInt::get(i32, 0));
  Value *d = builder.CreateSelect(isZero, ConstantInt::get(i32, 1), divisor, "divisor.nonzero");
  Value *leadingZeros = builder.CreateBinaryIntrinsic(
      Intrinsic::ctlz, builder.CreateSub(d, ConstantInt::get(i32, 1)), builder.getFalse());
  Value *log = builder.CreateSub(ConstantInt::get(i32, 32), leadingZeros, "divisor.ceil.log2");
  Value *wideDivisor = builder.CreateZExt(d, i64);
  Value *power = builder.CreateShl(ConstantInt::get(i64, 1), builder.CreateZExt(log, i64));
  Value *numerator = builder.CreateShl(builder.CreateSub(power, wideDivisor), 32);
  Value *multiplier =
      builder.CreateAdd(builder.CreateTrunc(builder.CreateUDiv(numerator, wideDivisor), i32),
                        ConstantInt::get(i32, 1), "divisor.multiplier");
  Value *isOne = builder.CreateICmpEQ(log, ConstantInt::get(i32, 0));
  Value *firstShift =
      builder.CreateSelect(isOne, ConstantInt::get(i32, 0), ConstantInt::get(i32, 1));
  Value *secondShift = builder.CreateSelect(isOne, ConstantInt::get(i32, 0),
                                            builder.CreateSub(log, ConstantInt::get(i32, 1)));
  return {multiplier, firstShift, secondShift};
}

/// The lanes of `dividend` (a vector of i32) divided by the divisor whose reciprocal is given.
Value *quotientOf(IRBuilder<> &builder, Value *dividend, const Reciprocal &reciprocal) {
  auto *type = cast<FixedVectorType>(dividend->getType());
  auto *wide = FixedVectorType::get(builder.getInt64Ty(), type->getNumElements());
  auto splat = [&](Value *scalar) {
    return builder.CreateVectorSplat(type->getNumElements(), scalar);
  };
  Value *product = builder.CreateMul(builder.CreateZExt(dividend, wide),
                                     builder.CreateZExt(splat(reciprocal.multiplier), wide));
  Value *high = builder.CreateTrunc(builder.CreateLShr(product, 32), type, "quotient.estimate");
  Value *halfway =
      builder.CreateLShr(builder.CreateSub(dividend, high), splat(reciprocal.firstShift));
  return builder.CreateLShr(builder.CreateAdd(high, halfway), splat(reciprocal.secondShift),
                            "quotient");
}

/// The divisor of `division` as one scalar when it divides vectors of 32-bit integers by one
/// value known only at run time; else null.
Value *sharedDivisor(const BinaryOperator &division) {
  auto *type = dyn_cast<FixedVectorType>(division.getType());
  if (type == nullptr || type->getNumElements() < 2 || !type->getElementType()->isIntegerTy(32))
    return nullptr;
  return runTimeUnsignedDivisor(division);
}

} // namespace

unsigned multiplyLanesByReciprocals(Function &function) {
  SmallVector<std::pair<BinaryOperator *, Value *>, 8> divisions;
  for (Instruction &instruction : instructions(function))
    if (auto *division = dyn_cast<BinaryOperator>(&instruction))
      if (Value *divisor = sharedDivisor(*division))
        divisions.push_back({division, divisor});
  for (auto [division, divisor] : divisions) {
    IRBuilder<> builder(division);
    Value *dividend = division->getOperand(0);
    Value *quotient = quotientOf(builder, dividend, reciprocalOf(builder, divisor));
    Value *result = quotient;
    if (division->getOpcode() == Instruction::URem)
      result = builder.CreateSub(dividend, builder.CreateMul(quotient, division->getOperand(1)),
                                 "remainder");
    if (auto *named = dyn_cast<Instruction>(result))
      named->takeName(division);
    division->replaceAllUsesWith(result);
    division->eraseFromParent();
  }
  return static_cast<unsigned>(divisions.size());
}

} // namespace kiln::cpu
