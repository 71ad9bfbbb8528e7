//===- float_round_trips.cpp - Integer results of float computations on small integers ===//
#include "devices/cpu/codegen/optimization/float_round_trips.hpp"

#include "devices/cpu/codegen/optimization/small_integer_range.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"

#include <map>
#include <optional>
#include <string>

using namespace llvm;

namespace kiln::cpu {
namespace {

/// Inputs of more bits are left alone: every value is evaluated (2^12 at most).
constexpr unsigned kMaxInputBits = 12;
/// Longer computations are left alone: each is evaluated once per input value.
constexpr unsigned kMaxSteps = 32;

/// Steps whose result IEEE arithmetic determines from their operands alone.
bool isExactStep(const Instruction &instruction) {
  switch (instruction.getOpcode()) {
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FMul:
  case Instruction::FDiv:
  case Instruction::FNeg:
  case Instruction::FPExt:
  case Instruction::FPTrunc:
    return true;
  default:
    break;
  }
  const auto *call = dyn_cast<IntrinsicInst>(&instruction);
  if (call == nullptr)
    return false;
  switch (call->getIntrinsicID()) {
  case Intrinsic::fma:
  case Intrinsic::fmuladd:
  case Intrinsic::roundeven:
  case Intrinsic::rint:
  case Intrinsic::nearbyint:
  case Intrinsic::round:
  case Intrinsic::floor:
  case Intrinsic::ceil:
  case Intrinsic::trunc:
  case Intrinsic::fabs:
  case Intrinsic::minnum:
  case Intrinsic::maxnum:
  case Intrinsic::copysign:
    return true;
  default:
    return false;
  }
}

/// The operands a step computes from: a call's arguments, not its callee.
auto inputsOf(Instruction &step) {
  return isa<CallInst>(step) ? cast<CallInst>(step).args() : step.operands();
}

/// A computation from one conversion of an integer to float up to an integer result: its steps
/// after their operands, the result last.
struct RoundTrip {
  CastInst *source = nullptr;
  SmallVector<Instruction *, 16> steps;
};

/// Collects the round trip that ends at `result`; false when it is not one.
class RoundTripCollector {
public:
  std::optional<RoundTrip> collect(Instruction &result) {
    for (Value *operand : result.operands())
      if (!collectOperand(operand))
        return std::nullopt;
    if (trip_.source == nullptr)
      return std::nullopt;
    trip_.steps.push_back(&result);
    return std::move(trip_);
  }

private:
  bool collectOperand(Value *value) {
    if (isa<Constant>(value))
      return true;
    auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr)
      return false;
    if (!visited_.insert(instruction).second)
      return true;
    if (isa<UIToFPInst, SIToFPInst>(instruction)) {
      if (trip_.source != nullptr)
        return false; // one input only: its values are the ones checked
      trip_.source = cast<CastInst>(instruction);
      return true;
    }
    if (!isExactStep(*instruction) || trip_.steps.size() >= kMaxSteps)
      return false;
    for (Value *operand : inputsOf(*instruction))
      if (!collectOperand(operand))
        return false;
    trip_.steps.push_back(instruction);
    return true;
  }

  RoundTrip trip_;
  SmallPtrSet<Instruction *, 16> visited_;
};

/// Whether `value` is a value the CPU computes as the folder does: no poison or undefined lanes,
/// no NaN (whose payload may differ), no subnormal float (which a kernel that flushes them to
/// zero treats otherwise).
bool isPlainValue(const Constant *value) {
  if (isa<UndefValue>(value) || value->containsUndefOrPoisonElement())
    return false;
  auto isPlainElement = [](const Constant *element) {
    const auto *real = dyn_cast_or_null<ConstantFP>(element);
    return real == nullptr || (!real->getValueAPF().isDenormal() && !real->isNaN());
  };
  auto *vector = dyn_cast<FixedVectorType>(value->getType());
  if (vector == nullptr)
    return isPlainElement(value);
  for (unsigned lane = 0; lane < vector->getNumElements(); ++lane)
    if (!isPlainElement(value->getAggregateElement(lane)))
      return false;
  return true;
}

/// The round trip's result for the input `input` in every lane; none when it is not one integer.
std::optional<APInt> evaluate(const RoundTrip &trip, int64_t input, const DataLayout &layout) {
  DenseMap<const Value *, Constant *> values;
  Constant *integer = ConstantInt::get(trip.source->getOperand(0)->getType(), input,
                                       /*IsSigned=*/isa<SIToFPInst>(trip.source));
  values[trip.source] =
      ConstantFoldCastOperand(trip.source->getOpcode(), integer, trip.source->getType(), layout);
  auto valueOf = [&](Value *operand) -> Constant * {
    if (auto *constant = dyn_cast<Constant>(operand))
      return constant;
    return values.lookup(operand);
  };
  for (Instruction *step : trip.steps) {
    Constant *result = nullptr;
    if (auto *call = dyn_cast<CallInst>(step)) {
      SmallVector<Constant *, 3> arguments;
      for (Value *argument : inputsOf(*call))
        arguments.push_back(valueOf(argument));
      // Deterministic enough: a NaN, whose payload the folder may choose, is refused below.
      result = ConstantFoldCall(call, call->getCalledFunction(), arguments);
    } else if (auto *compare = dyn_cast<CmpInst>(step)) {
      result =
          ConstantFoldCompareInstOperands(compare->getPredicate(), valueOf(compare->getOperand(0)),
                                          valueOf(compare->getOperand(1)), layout);
    } else if (auto *cast = dyn_cast<CastInst>(step)) {
      result = ConstantFoldCastOperand(cast->getOpcode(), valueOf(cast->getOperand(0)),
                                       cast->getType(), layout);
    } else if (step->getOpcode() == Instruction::FNeg) {
      result = ConstantFoldUnaryOpOperand(Instruction::FNeg, valueOf(step->getOperand(0)), layout);
    } else {
      result = ConstantFoldBinaryOpOperands(step->getOpcode(), valueOf(step->getOperand(0)),
                                            valueOf(step->getOperand(1)), layout);
    }
    if (result == nullptr || !isPlainValue(result))
      return std::nullopt;
    values[step] = result;
  }
  Constant *last = values.lookup(trip.steps.back());
  if (last->getType()->isVectorTy())
    last = last->getSplatValue();
  const auto *answer = dyn_cast_or_null<ConstantInt>(last);
  if (answer == nullptr)
    return std::nullopt;
  return answer->getValue();
}

/// result = scale * input + offset, in the result's width.
struct Affine {
  APInt scale, offset;
};

/// The affine function the round trip computes over `range`, when it computes one.
std::optional<Affine> fitAffine(const RoundTrip &trip, SmallIntegerRange range,
                                const DataLayout &layout) {
  unsigned width = trip.steps.back()->getType()->getScalarSizeInBits();
  // The input as the replacement sees it: extended or truncated to the result's width.
  auto input = [&](int64_t value) {
    return APInt(width, value, /*isSigned=*/true, /*implicitTrunc=*/true);
  };
  std::optional<APInt> first = evaluate(trip, range.low, layout);
  if (!first)
    return std::nullopt;
  Affine affine{APInt(width, 0), *first};
  if (range.high > range.low) {
    std::optional<APInt> second = evaluate(trip, range.low + 1, layout);
    if (!second)
      return std::nullopt;
    affine.scale = *second - *first;
    affine.offset = *first - affine.scale * input(range.low);
  }
  // A comparison's results are kept only when they are one constant.
  if (width == 1 && !affine.scale.isZero())
    return std::nullopt;
  for (int64_t value = range.low + 2; value <= range.high; ++value) {
    std::optional<APInt> result = evaluate(trip, value, layout);
    if (!result || *result != affine.scale * input(value) + affine.offset)
      return std::nullopt;
  }
  return affine;
}

/// What identifies a round trip's computation, so that one checked once (an unrolled loop's
/// copies, each channel of a pixel) is not checked again: its steps' kinds and types, the
/// constants they take (uniqued by LLVM) and which step feeds which.
std::string shapeOf(const RoundTrip &trip, SmallIntegerRange range) {
  std::string shape;
  raw_string_ostream out(shape);
  auto address = [](const void *pointer) { return pointer; };
  out << trip.source->getOpcode() << ' ' << address(trip.source->getOperand(0)->getType()) << ' '
      << address(trip.source->getType()) << ' ' << range.low << ' ' << range.high;
  DenseMap<const Value *, unsigned> index{{trip.source, 0}};
  for (Instruction *step : trip.steps) {
    out << " | " << step->getOpcode() << ' ' << address(step->getType());
    if (auto *call = dyn_cast<IntrinsicInst>(step))
      out << " i" << call->getIntrinsicID();
    if (auto *compare = dyn_cast<CmpInst>(step))
      out << " p" << compare->getPredicate();
    for (Value *operand : inputsOf(*step)) {
      if (isa<Constant>(operand))
        out << " c" << address(operand);
      else
        out << " s" << index.lookup(operand);
    }
    unsigned number = index.size();
    index[step] = number;
  }
  return shape;
}

/// The integer arithmetic that replaces the round trip.
Value *emitAffine(const RoundTrip &trip, const Affine &affine) {
  Instruction *result = trip.steps.back();
  Type *type = result->getType();
  IRBuilder<> builder(result);
  if (affine.scale.isZero())
    return ConstantInt::get(type, affine.offset);
  Value *input = trip.source->getOperand(0);
  Value *value = isa<UIToFPInst>(trip.source) ? builder.CreateZExtOrTrunc(input, type)
                                              : builder.CreateSExtOrTrunc(input, type);
  if (!affine.scale.isOne())
    value = builder.CreateMul(value, ConstantInt::get(type, affine.scale));
  if (!affine.offset.isZero())
    value = builder.CreateAdd(value, ConstantInt::get(type, affine.offset));
  return value;
}

} // namespace

unsigned foldFloatRoundTripsOfSmallIntegers(Function &function) {
  // Weak handles: deleting a folded computation may delete another's result feeding it.
  SmallVector<WeakTrackingVH, 16> results;
  for (Instruction &instruction : instructions(function))
    if (isa<FPToUIInst, FPToSIInst, FCmpInst>(instruction))
      results.emplace_back(&instruction);
  const DataLayout &layout = function.getDataLayout();
  std::map<std::string, std::optional<Affine>> checked;
  unsigned folded = 0;
  for (WeakTrackingVH &handle : results) {
    auto *result = dyn_cast_or_null<Instruction>(handle);
    if (result == nullptr)
      continue;
    std::optional<RoundTrip> trip = RoundTripCollector().collect(*result);
    if (!trip)
      continue;
    std::optional<SmallIntegerRange> range = smallIntegerRange(*trip->source, kMaxInputBits);
    if (!range)
      continue;
    std::string shape = shapeOf(*trip, *range);
    auto found = checked.find(shape);
    if (found == checked.end())
      found = checked.emplace(shape, fitAffine(*trip, *range, layout)).first;
    if (!found->second)
      continue;
    Value *replacement = emitAffine(*trip, *found->second);
    replacement->takeName(result);
    result->replaceAllUsesWith(replacement);
    RecursivelyDeleteTriviallyDeadInstructions(result);
    ++folded;
  }
  return folded;
}

} // namespace kiln::cpu
