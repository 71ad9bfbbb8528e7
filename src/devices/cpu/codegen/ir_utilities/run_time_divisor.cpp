//===- run_time_divisor.cpp - A division's divisor known only at run time --===//
#include "devices/cpu/codegen/ir_utilities/run_time_divisor.hpp"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Constants.h"

using namespace llvm;

namespace kiln::cpu {

Value *runTimeUnsignedDivisor(const Instruction &division) {
  if (division.getOpcode() != Instruction::UDiv && division.getOpcode() != Instruction::URem)
    return nullptr;
  Value *divisor = division.getOperand(1);
  if (divisor->getType()->isVectorTy())
    divisor = getSplatValue(divisor);
  return divisor == nullptr || isa<Constant>(divisor) ? nullptr : divisor;
}

} // namespace kiln::cpu
