//===- code_growth.cpp - How much code the vectorizer may make ------------===//
#include "devices/cpu/codegen/vectorizer/code_growth.hpp"

#include "devices/cpu/codegen/vectorizer/uniform_atomics.hpp"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

/// Vectorized code may be this many times one work-item's...
constexpr uint64_t kGrowthFactor = 4;
/// ...plus this many instructions: about a quarter of a second of compile time.
constexpr uint64_t kGrowthAllowance = 16384;

/// The lanes a masked memory intrinsic's code generation may split it into (1 for others).
uint64_t splitLanes(const Instruction &instruction) {
  const auto *intrinsic = dyn_cast<IntrinsicInst>(&instruction);
  if (intrinsic == nullptr)
    return 1;
  switch (intrinsic->getIntrinsicID()) {
  case Intrinsic::masked_gather:
  case Intrinsic::masked_expandload:
    return cast<FixedVectorType>(intrinsic->getType())->getNumElements();
  case Intrinsic::masked_scatter:
  case Intrinsic::masked_compressstore:
    return cast<FixedVectorType>(intrinsic->getArgOperand(0)->getType())->getNumElements();
  default:
    return 1;
  }
}

/// Whether `instruction` surely becomes one copy per lane (or a gather or scatter of every
/// lane) when widened.
bool runsLaneByLane(const Instruction &instruction, const ShapeAnalysis &shapes) {
  if (const auto *atomic = dyn_cast<AtomicRMWInst>(&instruction))
    return !combinesLanes(*atomic, [&](const Value *value) { return shapes.shape(value); });
  if (isa<AtomicCmpXchgInst>(instruction))
    return true;
  if (const Value *address = getLoadStorePointerOperand(&instruction)) {
    Shape shape = shapes.shape(address);
    bool simple = isa<LoadInst>(instruction) ? cast<LoadInst>(instruction).isSimple()
                                             : cast<StoreInst>(instruction).isSimple();
    return shape.isVarying() || (!shape.isUniform() && !simple);
  }
  if (const auto *call = dyn_cast<CallInst>(&instruction)) {
    const Function *callee = call->getCalledFunction();
    if (isa<IntrinsicInst>(call) || (callee && callee->getName().starts_with("__kiln_")))
      return false; // vector intrinsics, and Kiln's primitives (ids, barriers)
    return any_of(call->args(),
                  [&](const Use &argument) { return !shapes.shape(argument.get()).isUniform(); });
  }
  return false;
}

} // namespace

uint64_t leastVectorizedInstructions(const Function &function, const ShapeAnalysis &shapes,
                                     unsigned width) {
  uint64_t count = 0;
  for (const BasicBlock &block : function)
    for (const Instruction &instruction : block)
      count += runsLaneByLane(instruction, shapes) ? width : 1;
  return count;
}

uint64_t generatedInstructions(const Function &function) {
  uint64_t count = 0;
  for (const BasicBlock &block : function)
    for (const Instruction &instruction : block)
      count += splitLanes(instruction);
  return count;
}

uint64_t vectorizedCodeBudget(uint64_t scalar) {
  return kGrowthFactor * scalar + kGrowthAllowance;
}

std::string describeOverBudget(uint64_t vectorized, uint64_t scalar, unsigned width) {
  return "in " + std::to_string(width) + " lanes its code would grow from " +
         std::to_string(scalar) + " instructions to " + std::to_string(vectorized) +
         ", past the budget of " + std::to_string(vectorizedCodeBudget(scalar)) + " (" +
         std::to_string(kGrowthFactor) + " times one work-item's, plus " +
         std::to_string(kGrowthAllowance) + "), whose compile would cost far more than the " +
         "scalar code's";
}

} // namespace kiln::cpu::vectorizer
