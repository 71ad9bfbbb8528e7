//===- reciprocal_division.cpp - Exact division of small integers by constants ----===//
#include "devices/cpu/codegen/optimization/reciprocal_division.hpp"

#include "devices/cpu/codegen/optimization/small_integer_range.hpp"

#include "llvm/ADT/APFloat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"

#include <map>
#include <optional>
#include <tuple>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace kiln::cpu {
namespace {

/// Dividends of more bits are left alone: the check below visits every value (2^12 of them at
/// most, which covers 8- and 10-bit channels).
constexpr unsigned kMaxDividendBits = 12;

/// The reciprocal of `divisor` rounded to single precision, when the correction with it gives
/// the correctly rounded quotient x / divisor for every integer x in `range`; computed by
/// APFloat in IEEE single precision, whatever the process's floating-point environment. Divisors
/// of magnitude within [2^-24, 2^24] only, so that no quotient or residual of a non-zero
/// dividend is subnormal, which a kernel that flushes them would treat otherwise.
std::optional<APFloat> exactCorrectionReciprocal(const APFloat &divisor, SmallIntegerRange range) {
  constexpr RoundingMode kNearest = RoundingMode::NearestTiesToEven;
  APFloat magnitude = abs(divisor);
  if (magnitude.compare(APFloat(0x1p-24f)) == APFloat::cmpLessThan ||
      magnitude.compare(APFloat(0x1p24f)) == APFloat::cmpGreaterThan)
    return std::nullopt;
  APFloat reciprocal(1.0f);
  reciprocal.divide(divisor, kNearest);
  APFloat minusDivisor = -divisor;
  for (int64_t value = range.low; value <= range.high; ++value) {
    APFloat x(static_cast<float>(value));
    APFloat quotient = x;
    quotient.divide(divisor, kNearest);
    APFloat estimate = x;
    estimate.multiply(reciprocal, kNearest);
    APFloat residual = estimate; // fma(-q, d, x)
    residual.fusedMultiplyAdd(minusDivisor, x, kNearest);
    APFloat corrected = residual; // fma(e, r, q)
    corrected.fusedMultiplyAdd(reciprocal, estimate, kNearest);
    if (!corrected.bitwiseIsEqual(quotient))
      return std::nullopt;
  }
  return reciprocal;
}

} // namespace

unsigned divideSmallIntegersByReciprocal(Function &function) {
  SmallVector<BinaryOperator *, 8> divisions;
  for (Instruction &instruction : instructions(function)) {
    auto *division = dyn_cast<BinaryOperator>(&instruction);
    if (division == nullptr || division->getOpcode() != Instruction::FDiv ||
        !division->getType()->getScalarType()->isFloatTy() || division->hasAllowReciprocal())
      continue;
    divisions.push_back(division);
  }
  // Each divisor and range is checked once.
  std::map<std::tuple<uint64_t, int64_t, int64_t>, std::optional<APFloat>> checked;
  unsigned rewritten = 0;
  for (BinaryOperator *division : divisions) {
    auto *conversion = dyn_cast<CastInst>(division->getOperand(0));
    const APFloat *divisor = nullptr;
    if (conversion == nullptr || !match(division->getOperand(1), m_APFloat(divisor)) ||
        !divisor->isFiniteNonZero())
      continue;
    std::optional<SmallIntegerRange> range = smallIntegerRange(*conversion, kMaxDividendBits);
    if (!range)
      continue;
    auto key = std::make_tuple(divisor->bitcastToAPInt().getZExtValue(), range->low, range->high);
    auto found = checked.find(key);
    if (found == checked.end())
      found = checked.emplace(key, exactCorrectionReciprocal(*divisor, *range)).first;
    if (!found->second)
      continue;
    IRBuilder<> builder(division);
    Type *type = division->getType();
    Value *x = division->getOperand(0);
    Constant *reciprocal = ConstantFP::get(type, *found->second);
    Constant *minusDivisor = ConstantFP::get(type, -*divisor);
    Value *q = builder.CreateFMul(x, reciprocal, "quotient.estimate");
    Value *residual =
        builder.CreateIntrinsic(Intrinsic::fma, {type}, {q, minusDivisor, x}, {}, "residual");
    Value *quotient =
        builder.CreateIntrinsic(Intrinsic::fma, {type}, {residual, reciprocal, q}, {}, "quotient");
    quotient->takeName(division);
    division->replaceAllUsesWith(quotient);
    division->eraseFromParent();
    ++rewritten;
  }
  return rewritten;
}

} // namespace kiln::cpu
