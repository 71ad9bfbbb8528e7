//===- division_guard.cpp - Integer division that never traps ------------===//
#include "devices/cpu/codegen/preparation/division_guard.hpp"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

bool isSignedDivision(const BinaryOperator &division) {
  return division.getOpcode() == Instruction::SDiv || division.getOpcode() == Instruction::SRem;
}

/// A constant divisor none of whose elements can trap needs no guard.
bool isSafeConstantDivisor(const Value *divisor, bool isSigned) {
  const auto *constant = dyn_cast<Constant>(divisor);
  if (constant == nullptr)
    return false;
  auto safe = [&](const Constant *element) {
    const auto *value = dyn_cast_or_null<ConstantInt>(element);
    return value != nullptr && !value->isZero() && !(isSigned && value->isMinusOne());
  };
  const auto *vector = dyn_cast<FixedVectorType>(constant->getType());
  if (vector == nullptr)
    return safe(constant);
  for (unsigned index = 0; index < vector->getNumElements(); ++index)
    if (!safe(constant->getAggregateElement(index)))
      return false;
  return true;
}

/// The value itself, frozen unless it is known to be neither undef nor poison: the comparison
/// and the division must see the same value.
Value *frozen(IRBuilder<> &builder, Value *value) {
  if (isGuaranteedNotToBeUndefOrPoison(value))
    return value;
  return builder.CreateFreeze(value, value->getName() + ".frozen");
}

void guard(BinaryOperator &division) {
  bool isSigned = isSignedDivision(division);
  IRBuilder<> builder(&division);
  Type *type = division.getType();
  Value *divisor = frozen(builder, division.getOperand(1));
  Value *trapping = builder.CreateICmpEQ(divisor, Constant::getNullValue(type), "div.by.zero");
  if (isSigned) {
    Value *dividend = frozen(builder, division.getOperand(0));
    unsigned bits = type->getScalarSizeInBits();
    Value *isMin =
        builder.CreateICmpEQ(dividend, ConstantInt::get(type, APInt::getSignedMinValue(bits)));
    Value *isMinusOne = builder.CreateICmpEQ(divisor, Constant::getAllOnesValue(type));
    trapping = builder.CreateOr(trapping, builder.CreateAnd(isMin, isMinusOne), "div.overflow");
    division.setOperand(0, dividend);
  }
  division.setOperand(
      1, builder.CreateSelect(trapping, ConstantInt::get(type, 1), divisor, "safe.divisor"));
}

} // namespace

unsigned guardIntegerDivisions(Module &module) {
  SmallVector<BinaryOperator *, 16> divisions;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function))
      if (auto *binary = dyn_cast<BinaryOperator>(&instruction))
        if (binary->isIntDivRem() &&
            !isSafeConstantDivisor(binary->getOperand(1), isSignedDivision(*binary)))
          divisions.push_back(binary);
  for (BinaryOperator *division : divisions)
    guard(*division);
  return divisions.size();
}

} // namespace kiln::cpu
