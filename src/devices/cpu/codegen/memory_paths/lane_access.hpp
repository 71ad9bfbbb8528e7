//===- lane_access.hpp - A gather or scatter of the vectorizer, taken apart ===//
//
// The vectorizer widens a memory access whose addresses differ between lanes, and that it
// cannot prove consecutive, into llvm.masked.gather or llvm.masked.scatter. The steps that give
// such an access a cheaper form for the cases only the run time can tell (consecutive lanes,
// lanes within a small window) read its operands through this view.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/IntrinsicInst.h"

#include <optional>

namespace kiln::cpu {

struct LaneAccess {
  llvm::IntrinsicInst *call;
  bool isGather;
  llvm::Value *pointers; // <N x ptr>
  llvm::Value *mask;     // <N x i1>
  llvm::Type *elementType;
  llvm::Align alignment;
};

/// `instruction` as a gather or scatter; none for any other instruction.
std::optional<LaneAccess> gatherOrScatter(llvm::Instruction &instruction);

} // namespace kiln::cpu
