//===- saturating_conversions.cpp - Float-to-integer conversions as PTX's cvt -===//
#include "devices/cuda/codegen/saturating_conversions.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include <utility>

using namespace llvm;

namespace kiln::cuda {
namespace {

/// cvt's integer roundings, in the order of the table below.
enum Rounding { ToNearestEven, Down, Up, TowardZero };

/// The NVVM intrinsic of cvt from float (or double) to a 32-bit (or 64-bit) integer, signed or
/// not, with `rounding`.
Intrinsic::ID cvtIntrinsic(bool fromDouble, bool toLong, bool isSigned, Rounding rounding) {
  using namespace Intrinsic;
  static constexpr ID kTable[2][2][2][4] = {
      {{{nvvm_f2ui_rn, nvvm_f2ui_rm, nvvm_f2ui_rp, nvvm_f2ui_rz},
        {nvvm_f2i_rn, nvvm_f2i_rm, nvvm_f2i_rp, nvvm_f2i_rz}},
       {{nvvm_f2ull_rn, nvvm_f2ull_rm, nvvm_f2ull_rp, nvvm_f2ull_rz},
        {nvvm_f2ll_rn, nvvm_f2ll_rm, nvvm_f2ll_rp, nvvm_f2ll_rz}}},
      {{{nvvm_d2ui_rn, nvvm_d2ui_rm, nvvm_d2ui_rp, nvvm_d2ui_rz},
        {nvvm_d2i_rn, nvvm_d2i_rm, nvvm_d2i_rp, nvvm_d2i_rz}},
       {{nvvm_d2ull_rn, nvvm_d2ull_rm, nvvm_d2ull_rp, nvvm_d2ull_rz},
        {nvvm_d2ll_rn, nvvm_d2ll_rm, nvvm_d2ll_rp, nvvm_d2ll_rz}}}};
  return kTable[fromDouble][toLong][isSigned][rounding];
}

/// The rounding a conversion of `value` can do itself, and the value it then converts: the
/// rounding function `value` is the result of and that function's operand, or toward zero and
/// `value` itself.
std::pair<Rounding, Value *> roundingBefore(Value *value) {
  if (auto *call = dyn_cast<IntrinsicInst>(value)) {
    switch (call->getIntrinsicID()) {
    case Intrinsic::rint:
    case Intrinsic::nearbyint:
    case Intrinsic::roundeven:
      return {ToNearestEven, call->getArgOperand(0)};
    case Intrinsic::floor:
      return {Down, call->getArgOperand(0)};
    case Intrinsic::ceil:
      return {Up, call->getArgOperand(0)};
    case Intrinsic::trunc:
      return {TowardZero, call->getArgOperand(0)};
    default:
      break;
    }
  }
  return {TowardZero, value};
}

/// Whether `call` is a saturating conversion cvt does in one instruction: of f32 or f64
/// (elements) to i32 or i64.
bool convertsInOneCvt(const IntrinsicInst &call) {
  Intrinsic::ID id = call.getIntrinsicID();
  if (id != Intrinsic::fptosi_sat && id != Intrinsic::fptoui_sat)
    return false;
  Type *source = call.getArgOperand(0)->getType()->getScalarType();
  unsigned bits = call.getType()->getScalarSizeInBits();
  return (source->isFloatTy() || source->isDoubleTy()) && (bits == 32 || bits == 64);
}

/// The cvt of `call`'s operand, element by element for vectors.
Value *cvtOf(IntrinsicInst &call) {
  IRBuilder<> builder(&call);
  auto [rounding, source] = roundingBefore(call.getArgOperand(0));
  bool fromDouble = source->getType()->getScalarType()->isDoubleTy();
  bool toLong = call.getType()->getScalarSizeInBits() == 64;
  Intrinsic::ID cvt =
      cvtIntrinsic(fromDouble, toLong, call.getIntrinsicID() == Intrinsic::fptosi_sat, rounding);
  Type *element = call.getType()->getScalarType();
  // The H200 converts NaN to 0 only from a float to 32 bits: from a double, or to 64 bits, it
  // gives the bit pattern 100...0, so NaN is selected away there.
  bool nanNeedsSelect = fromDouble || toLong;
  auto convert = [&](Value *x) {
    Value *converted = builder.CreateIntrinsic(element, cvt, {x});
    if (!nanNeedsSelect)
      return converted;
    return builder.CreateSelect(builder.CreateFCmpUNO(x, x), Constant::getNullValue(element),
                                converted);
  };
  auto *vector = dyn_cast<FixedVectorType>(call.getType());
  if (vector == nullptr)
    return convert(source);
  Value *result = PoisonValue::get(vector);
  for (unsigned lane = 0; lane < vector->getNumElements(); ++lane)
    result = builder.CreateInsertElement(result,
                                         convert(builder.CreateExtractElement(source, lane)), lane);
  return result;
}

} // namespace

void lowerSaturatingConversions(Module &module) {
  SmallVector<IntrinsicInst *, 16> conversions;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function))
      if (auto *call = dyn_cast<IntrinsicInst>(&instruction); call && convertsInOneCvt(*call))
        conversions.push_back(call);
  for (IntrinsicInst *call : conversions) {
    Value *rounded = call->getArgOperand(0);
    call->replaceAllUsesWith(cvtOf(*call));
    call->eraseFromParent();
    // The rounding the cvt took over, unless something else uses its result.
    if (auto *rounding = dyn_cast<IntrinsicInst>(rounded); rounding && rounding->use_empty())
      rounding->eraseFromParent();
  }
}

} // namespace kiln::cuda
