//===- lane_access.cpp - A gather or scatter of the vectorizer, taken apart ===//
#include "devices/cpu/codegen/memory_paths/lane_access.hpp"

using namespace llvm;

namespace kiln::cpu {

std::optional<LaneAccess> gatherOrScatter(Instruction &instruction) {
  auto *call = dyn_cast<IntrinsicInst>(&instruction);
  if (call == nullptr)
    return std::nullopt;
  bool isGather = call->getIntrinsicID() == Intrinsic::masked_gather;
  if (!isGather && call->getIntrinsicID() != Intrinsic::masked_scatter)
    return std::nullopt;
  unsigned pointerOperand = isGather ? 0 : 1;
  Type *vectorType = isGather ? call->getType() : call->getArgOperand(0)->getType();
  return LaneAccess{call,
                    isGather,
                    call->getArgOperand(pointerOperand),
                    call->getArgOperand(pointerOperand + 1),
                    cast<VectorType>(vectorType)->getElementType(),
                    call->getParamAlign(pointerOperand).valueOrOne()};
}

} // namespace kiln::cpu
