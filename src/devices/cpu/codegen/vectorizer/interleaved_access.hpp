//===- interleaved_access.hpp - Vector types read and written across lanes ===//
//
// A kernel that reads a float4 (a float2 complex number, a uchar4 pixel) from an array indexed
// by its work-item id reads, after vector types are scalarized, four scalars whose addresses
// advance by 16 bytes from lane to lane: each alone is a gather. Together they read every byte
// of one contiguous run, lane 0's four components, then lane 1's, ... Such a group of accesses
// is read with plain vector loads of the whole run and split into one vector per component with
// shuffles (written back the same way for stores): a gather costs a load per lane, the group one
// load per vector register.
//
// A group is the accesses of one block, with no other write between its loads (no other access
// between its stores), to the addresses base + lane * stride + component * size for every
// component of the stride (stride = factor * size): each byte of the run exactly once.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

#include <vector>

namespace kiln::cpu::vectorizer {

struct InterleavedGroup {
  /// members[c] accesses component c (byte offset c * size from the run's start in each lane).
  llvm::SmallVector<llvm::Instruction *, 16> members;
  llvm::Instruction *first = nullptr; // in program order: where the loads are read together
  llvm::Instruction *last = nullptr;  // where the stores are written together
  llvm::Type *elementType = nullptr;
  unsigned factor = 0; // components per lane
  bool isStore = false;

  /// The bytes from `first`'s address to the run's start (component 0 of lane 0).
  int64_t startFromFirst = 0;
  llvm::Align startAlign; // what the run's start is known to be aligned to
};

class InterleavedGroups {
public:
  InterleavedGroups(llvm::Function &function, const ShapeAnalysis &shapes);

  /// The group `access` belongs to, or null.
  const InterleavedGroup *groupOf(const llvm::Instruction *access) const;

private:
  std::vector<InterleavedGroup> groups_;
  llvm::DenseMap<const llvm::Instruction *, unsigned> groupIndex_;
};

} // namespace kiln::cpu::vectorizer
