//===- uniform_atomics.cpp - One atomic add for the lanes that add to one address ===//
#include "devices/cpu/codegen/vectorizer/uniform_atomics.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace kiln::cpu::vectorizer {

bool combinesLanes(const AtomicRMWInst &atomic,
                   const std::function<Shape(const Value *)> &shapeOf) {
  AtomicRMWInst::BinOp operation = atomic.getOperation();
  return (operation == AtomicRMWInst::Add || operation == AtomicRMWInst::Sub) &&
         atomic.getType()->isIntegerTy() && shapeOf(atomic.getPointerOperand()).isUniform();
}

Value *exclusiveLaneSums(IRBuilder<> &builder, Value *values) {
  auto *type = cast<FixedVectorType>(values->getType());
  unsigned width = type->getNumElements();
  Value *zero = Constant::getNullValue(type);
  // Hillis-Steele in registers: after the step of `shift`, lane i holds the sum of the
  // 2 * shift lanes up to and including it.
  Value *inclusive = values;
  SmallVector<int, 128> fromBefore(width);
  for (unsigned shift = 1; shift < width; shift *= 2) {
    for (unsigned lane = 0; lane < width; ++lane)
      fromBefore[lane] = lane >= shift ? static_cast<int>(lane - shift) : static_cast<int>(width);
    Value *shifted = builder.CreateShuffleVector(inclusive, zero, fromBefore, "lanes.before");
    inclusive = builder.CreateAdd(inclusive, shifted, "lanes.sum");
  }
  return builder.CreateSub(inclusive, values, "lanes.sum.before");
}

} // namespace kiln::cpu::vectorizer
