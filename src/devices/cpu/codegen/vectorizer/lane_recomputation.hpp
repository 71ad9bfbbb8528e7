//===- lane_recomputation.hpp - Each lane's operand from scalar code ------===//
//
// An instruction the vectorizer runs once per lane (an atomic or a store through varying
// addresses, a call) takes each lane's varying operands from the vectors computed before it, and
// a vector's lanes reach scalar code only one extract at a time or through memory. Where an
// operand is a short chain of scalar instructions over values the same in every lane, values
// that step by a constant from lane to lane, and at most one load from such stepping addresses,
// each lane's copy recomputes it instead, as a loop over the work-items would: the suite's
// histogram's `&counts[data[i]]` becomes, per lane, a byte load, a zero extension and an
// address, where it was an address computed in a vector, stored and loaded back.
//
// A load is repeated only where it reads what the vector load read: in the same block, with no
// write to memory between the two, and the per-lane instruction writing memory of another named
// address space (memory objects of different address spaces never overlap), or the load reading
// constant memory.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <functional>
#include <vector>

namespace kiln::cpu::vectorizer {

/// Whether a strided value of `type` has lane l's value computed from lane 0's (stepLane):
/// integers and pointers.
bool isSteppable(llvm::Type *type);

/// Lane `lane`'s value of `value` (lane 0's), whose lanes step by `stride`.
llvm::Value *stepLane(llvm::IRBuilder<> &builder, llvm::Value *value, int64_t stride,
                      unsigned lane);

class LaneRecomputation {
public:
  /// `order`: the function's instructions before widening, block by block, each block's in
  /// order. `shapeOf`: the shapes of the values of those instructions.
  LaneRecomputation(llvm::ArrayRef<llvm::Instruction *> order,
                    std::function<Shape(const llvm::Value *)> shapeOf);

  /// Whether every lane's copy of `user` can recompute its varying operand `operand`.
  bool recomputable(llvm::Value *operand, const llvm::Instruction &user) const;

  /// Lane `lane`'s value of `operand` (recomputable), computed at `builder`'s insertion point.
  llvm::Value *recompute(llvm::IRBuilder<> &builder, llvm::Value *operand, unsigned lane) const;

private:
  /// The longest chain recomputed per lane, in instructions.
  static constexpr unsigned kMaxChain = 6;

  bool recomputable(llvm::Value *value, const llvm::Instruction &user, unsigned &budget,
                    bool &loaded) const;
  bool repeatable(const llvm::LoadInst &load, const llvm::Instruction &user) const;
  bool passesThrough(const llvm::Value *value) const;

  std::vector<llvm::Instruction *> order_;
  /// Each instruction's position in order_, and its block before widening split any.
  llvm::DenseMap<const llvm::Instruction *, std::pair<unsigned, const llvm::BasicBlock *>> place_;
  std::function<Shape(const llvm::Value *)> shapeOf_;
};

} // namespace kiln::cpu::vectorizer
