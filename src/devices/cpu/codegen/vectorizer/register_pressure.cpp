//===- register_pressure.cpp - How many lanes a kernel's registers hold ---===//
#include "devices/cpu/codegen/vectorizer/register_pressure.hpp"

#include "compiler/llvm/sub_group_primitives.hpp"

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"

#include <algorithm>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace kiln::cpu::vectorizer {
namespace {

using LiveSet = DenseSet<const Value *>;

class PressureEstimate {
public:
  PressureEstimate(Function &function, const ShapeAnalysis &shapes)
      : function_(function), shapes_(shapes), layout_(function.getDataLayout()) {}

  unsigned run() {
    solveLiveness();
    unsigned peak = 0;
    for (BasicBlock &block : function_)
      peak = std::max(peak, peakIn(block));
    return peak;
  }

private:
  /// What a value costs in 32-bit lanes when it is varying; 0 when it takes no vector register.
  unsigned weight(const Value *value) const {
    if (!isa<Instruction>(value) || !shapes_.shape(value).isVarying() || foldsIntoFma(value) ||
        isLaneConstant(value))
      return 0;
    Type *type = value->getType();
    if (type->isVoidTy() || type->isIntegerTy(1) || !type->isSized())
      return 0;
    uint64_t bits = layout_.getTypeSizeInBits(type).getKnownMinValue();
    return static_cast<unsigned>(std::max<uint64_t>(1, (bits + 31) / 32));
  }

  /// A negation that only multiply-adds use becomes part of them (vfnmadd): no register of its
  /// own. (clpeak-like `y = mad(y, m, -x)` would otherwise count x twice.)
  static bool foldsIntoFma(const Value *value) {
    if (!match(value, m_FNeg(m_Value())))
      return false;
    return all_of(value->users(), isMultiplyAdd);
  }

  /// Whether `value` is computed from constants and the lanes' sub-group ids alone (a butterfly's
  /// partner lanes, `lane ^ 4`): once the width is known these are constant vectors, which
  /// instructions read from memory, not registers held across the code.
  bool isLaneConstant(const Value *value) const {
    if (isa<Constant>(value))
      return true;
    auto known = laneConstant_.find(value);
    if (known != laneConstant_.end())
      return known->second;
    bool result = false;
    if (const auto *call = dyn_cast<CallBase>(value))
      result = compiler::subGroupPrimitive(*call) == compiler::SubGroupPrimitive::LocalId;
    else if (isa<BinaryOperator, CastInst, CmpInst>(value))
      result = all_of(cast<Instruction>(value)->operands(),
                      [&](const Use &operand) { return isLaneConstant(operand.get()); });
    laneConstant_[value] = result;
    return result;
  }

  /// Values used by `block`'s phis along the edge from `predecessor`.
  void addPhiUses(const BasicBlock &block, const BasicBlock *predecessor, LiveSet &live) const {
    for (const PHINode &phi : block.phis())
      if (const Value *incoming = phi.getIncomingValueForBlock(predecessor); weight(incoming))
        live.insert(incoming);
  }

  LiveSet liveOutOf(const BasicBlock &block) const {
    LiveSet live;
    for (const BasicBlock *successor : successors(&block)) {
      for (const Value *value : liveIn_.lookup(successor))
        live.insert(value);
      addPhiUses(*successor, &block, live);
    }
    return live;
  }

  void solveLiveness() {
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock &block : reverse(function_)) {
        LiveSet live = liveOutOf(block);
        for (const Instruction &instruction : reverse(block)) {
          live.erase(&instruction);
          if (isa<PHINode>(instruction))
            continue;
          for (const Use &operand : instruction.operands())
            if (weight(operand.get()))
              live.insert(operand.get());
        }
        LiveSet &known = liveIn_[&block];
        if (known.size() != live.size()) {
          known = std::move(live);
          changed = true;
        }
      }
    }
  }

  unsigned peakIn(const BasicBlock &block) const {
    LiveSet live = liveOutOf(block);
    unsigned current = 0;
    for (const Value *value : live)
      current += weight(value);
    unsigned peak = current;
    for (const Instruction &instruction : reverse(block)) {
      if (live.erase(&instruction))
        current -= weight(&instruction);
      if (!isa<PHINode>(instruction))
        for (const Use &operand : instruction.operands())
          if (unsigned cost = weight(operand.get()); cost && live.insert(operand.get()).second)
            current += cost;
      peak = std::max(peak, current);
    }
    return peak;
  }

  Function &function_;
  const ShapeAnalysis &shapes_;
  const DataLayout &layout_;
  DenseMap<const BasicBlock *, LiveSet> liveIn_;
  mutable DenseMap<const Value *, bool> laneConstant_;
};

} // namespace

unsigned peakVaryingPressure(Function &function, const ShapeAnalysis &shapes) {
  return PressureEstimate(function, shapes).run();
}

} // namespace kiln::cpu::vectorizer
