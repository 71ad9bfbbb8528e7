//===- uniform_division.cpp - Division by a work-group-invariant divisor --===//
#include "devices/cpu/codegen/uniform_division.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// How deep to look through the arithmetic that computes a divisor from invariant values.
constexpr unsigned kMaxInvariantDepth = 6;

/// Whether `value` is the same for every work-item: a constant, a parameter, a value of the
/// prologue, or plain arithmetic on those.
bool isWorkGroupInvariant(const Value *value, const BasicBlock &prologue, unsigned depth = 0) {
  if (isa<Constant>(value) || isa<Argument>(value))
    return true;
  const auto *instruction = dyn_cast<Instruction>(value);
  if (instruction == nullptr)
    return false;
  if (instruction->getParent() == &prologue)
    return true;
  bool plainArithmetic = isa<BinaryOperator>(instruction) || isa<CastInst>(instruction) ||
                         isa<SelectInst>(instruction) || isa<ICmpInst>(instruction) ||
                         isa<FreezeInst>(instruction);
  if (!plainArithmetic || depth == kMaxInvariantDepth)
    return false;
  return all_of(instruction->operands(), [&](const Use &operand) {
    return isWorkGroupInvariant(operand.get(), prologue, depth + 1);
  });
}

/// if (divisor is a power of two) shift or mask; else divide.
void branchOnPowerOfTwo(BinaryOperator &division) {
  IRBuilder<> builder(&division);
  Value *dividend = division.getOperand(0);
  Value *divisor = division.getOperand(1);
  Type *type = division.getType();
  Value *population = builder.CreateUnaryIntrinsic(Intrinsic::ctpop, divisor);
  Value *isPowerOfTwo =
      builder.CreateICmpEQ(population, ConstantInt::get(type, 1), "divisor.is.pow2");
  Instruction *thenTerminator = nullptr;
  Instruction *elseTerminator = nullptr;
  SplitBlockAndInsertIfThenElse(isPowerOfTwo, &division, &thenTerminator, &elseTerminator);
  BasicBlock *tail = division.getParent();

  builder.SetInsertPoint(thenTerminator);
  Value *fast = nullptr;
  if (division.getOpcode() == Instruction::UDiv) {
    Value *shift = builder.CreateBinaryIntrinsic(Intrinsic::cttz, divisor, builder.getTrue());
    fast = builder.CreateLShr(dividend, shift, division.getName() + ".shift");
  } else {
    Value *mask = builder.CreateSub(divisor, ConstantInt::get(type, 1));
    fast = builder.CreateAnd(dividend, mask, division.getName() + ".mask");
  }
  division.moveBefore(elseTerminator->getIterator());

  builder.SetInsertPoint(tail, tail->getFirstInsertionPt());
  PHINode *result = builder.CreatePHI(type, 2, division.getName() + ".result");
  division.replaceAllUsesWith(result);
  result->addIncoming(fast, thenTerminator->getParent());
  result->addIncoming(&division, elseTerminator->getParent());
}

} // namespace

unsigned specializePowerOfTwoDivisions(Function &function) {
  const BasicBlock &prologue = function.getEntryBlock();
  SmallVector<BinaryOperator *, 8> divisions;
  for (BasicBlock &block : drop_begin(function))
    for (Instruction &instruction : block) {
      auto *division = dyn_cast<BinaryOperator>(&instruction);
      if (division == nullptr || !division->getType()->isIntegerTy() ||
          (division->getOpcode() != Instruction::UDiv &&
           division->getOpcode() != Instruction::URem))
        continue;
      Value *divisor = division->getOperand(1);
      if (!isa<Constant>(divisor) && isWorkGroupInvariant(divisor, prologue))
        divisions.push_back(division);
    }
  for (BinaryOperator *division : divisions)
    branchOnPowerOfTwo(*division);
  return static_cast<unsigned>(divisions.size());
}

} // namespace kiln::cpu
