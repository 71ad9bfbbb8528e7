//===- small_integer_range.cpp - The integers a conversion to float converts ----===//
#include "devices/cpu/codegen/optimization/small_integer_range.hpp"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cpu {

std::optional<SmallIntegerRange> smallIntegerRange(const CastInst &conversion, unsigned maxBits) {
  const Value *integer = conversion.getOperand(0);
  const DataLayout &layout = conversion.getDataLayout();
  unsigned width = integer->getType()->getScalarSizeInBits();
  if (isa<UIToFPInst>(conversion)) {
    KnownBits known = computeKnownBits(integer, layout);
    unsigned bits = width - known.countMinLeadingZeros();
    if (bits > maxBits)
      return std::nullopt;
    return SmallIntegerRange{0, (int64_t{1} << bits) - 1};
  }
  if (isa<SIToFPInst>(conversion)) {
    unsigned bits = width - ComputeNumSignBits(integer, layout) + 1;
    if (bits > maxBits)
      return std::nullopt;
    return SmallIntegerRange{-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
  }
  return std::nullopt;
}

} // namespace kiln::cpu
