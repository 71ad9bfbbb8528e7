//===- uniform_division.cpp - Division by a work-group-invariant divisor --===//
#include "devices/cpu/codegen/optimization/uniform_division.hpp"

#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"
#include "devices/cpu/codegen/ir_utilities/run_time_divisor.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

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

/// if (divisor is a power of two) shift or mask; else divide. The test is on the scalar divisor,
/// so it is one branch for all lanes of a vectorized division too.
void branchOnPowerOfTwo(BinaryOperator &division, Value *divisor) {
  IRBuilder<> builder(&division);
  Type *scalarType = divisor->getType();
  Value *population = builder.CreateUnaryIntrinsic(Intrinsic::ctpop, divisor);
  Value *isPowerOfTwo =
      builder.CreateICmpEQ(population, ConstantInt::get(scalarType, 1), "divisor.is.pow2");
  branchToFastPath(isPowerOfTwo, division, [&](IRBuilder<> &fast) -> Value * {
    auto asOperand = [&](Value *scalar) {
      auto *vectorType = dyn_cast<VectorType>(division.getType());
      return vectorType ? fast.CreateVectorSplat(vectorType->getElementCount(), scalar) : scalar;
    };
    Value *dividend = division.getOperand(0);
    if (division.getOpcode() == Instruction::UDiv) {
      Value *shift = fast.CreateBinaryIntrinsic(Intrinsic::cttz, divisor, fast.getTrue());
      return fast.CreateLShr(dividend, asOperand(shift), division.getName() + ".shift");
    }
    Value *mask = fast.CreateSub(divisor, ConstantInt::get(scalarType, 1));
    return fast.CreateAnd(dividend, asOperand(mask), division.getName() + ".mask");
  });
}

} // namespace

unsigned specializePowerOfTwoDivisions(Function &function) {
  const BasicBlock &prologue = function.getEntryBlock();
  SmallVector<std::pair<BinaryOperator *, Value *>, 8> divisions;
  for (BasicBlock &block : drop_begin(function))
    for (Instruction &instruction : block) {
      Value *divisor = runTimeUnsignedDivisor(instruction);
      if (divisor != nullptr && isWorkGroupInvariant(divisor, prologue))
        divisions.push_back({cast<BinaryOperator>(&instruction), divisor});
    }
  for (auto [division, divisor] : divisions)
    branchOnPowerOfTwo(*division, divisor);
  return static_cast<unsigned>(divisions.size());
}

} // namespace kiln::cpu
