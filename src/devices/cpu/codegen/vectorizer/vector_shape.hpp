//===- vector_shape.hpp - How values vary across the lanes of a SIMD group ===//
//
// The work-item vectorizer runs W consecutive work-items (along dimension 0) in the lanes of
// one vector. Each scalar value of the kernel then has a shape across those lanes:
//   - strided(s): lane l holds v + l*s (integers: in units; pointers: in bytes); strided(0) is
//     uniform: every lane holds the same value. The kernel's own scalar instruction computes
//     lane 0, so such values stay scalar and are materialized as vectors only where a varying
//     use needs them.
//   - varying: anything else; the value becomes a vector of W lanes.
// The analysis is a forward fixed point from the seeds: __kiln_local_id(0) is strided(1), the
// other work-item primitives and the kernel's arguments are uniform, allocas are strided by
// their size (each lane gets its own copy, the copies side by side).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

#include <cstdint>

namespace kiln::cpu::vectorizer {

class Shape {
public:
  Shape() = default; // unknown
  static Shape unknown() { return Shape(Kind::Unknown, 0); }
  static Shape uniform() { return Shape(Kind::Strided, 0); }
  static Shape strided(int64_t stride) { return Shape(Kind::Strided, stride); }
  static Shape varying() { return Shape(Kind::Varying, 0); }

  bool isKnown() const { return kind_ != Kind::Unknown; }
  bool isUniform() const { return kind_ == Kind::Strided && stride_ == 0; }
  bool isStrided() const { return kind_ == Kind::Strided; }
  bool isVarying() const { return kind_ == Kind::Varying; }
  int64_t stride() const { return stride_; }

  /// The shape of a value that may be either of two (a phi, a select).
  Shape join(Shape other) const {
    if (!isKnown())
      return other;
    if (!other.isKnown() || *this == other)
      return *this;
    return varying();
  }

  bool operator==(const Shape &other) const = default;

private:
  enum class Kind { Unknown, Strided, Varying };
  Shape(Kind kind, int64_t stride) : kind_(kind), stride_(stride) {}
  Kind kind_ = Kind::Unknown;
  int64_t stride_ = 0;
};

/// The functions whose calls the analysis knows.
struct ShapeSeeds {
  llvm::Function *localId = nullptr; // __kiln_local_id(dim)
  llvm::Function *anyLane = nullptr; // the vectorizer's own "any lane active" (uniform)
  llvm::Function *barrier = nullptr; // __kiln_work_group_barrier

  /// Whether `call` must be reached by all work-items of the group together. (Clang marks every
  /// OpenCL C function convergent; only the barrier truly is among the functions a kernel calls
  /// once the builtin library is inlined.)
  bool isBarrier(const llvm::CallBase &call) const {
    return barrier && call.getCalledFunction() == barrier;
  }
};

class ShapeAnalysis {
public:
  /// `forcedVarying`: values known to differ between lanes whatever their operands say (the
  /// phis where divergent control flow joins).
  ShapeAnalysis(llvm::Function &function, ShapeSeeds seeds,
                const llvm::DenseSet<const llvm::Value *> &forcedVarying = {});

  Shape shape(const llvm::Value *value) const;

private:
  Shape transfer(const llvm::Instruction &instruction) const;
  Shape callShape(const llvm::CallBase &call) const;
  Shape gepShape(const llvm::GetElementPtrInst &gep) const;
  Shape binaryShape(const llvm::BinaryOperator &op) const;
  Shape castShape(const llvm::CastInst &cast) const;

  const llvm::DataLayout &layout_;
  ShapeSeeds seeds_;
  llvm::DenseMap<const llvm::Value *, Shape> shapes_;
};

/// Whether calls of `function` return the same value for every work-item of a work-group when
/// their arguments are the same: the work-group primitives, and functions without side effects.
bool isUniformPrimitive(const llvm::Function &function);

/// Whether `call` is a direct call of such a function: the same value wherever a work-item of
/// the launch makes it with the same arguments (get_global_size(0)).
bool callsUniformPrimitive(const llvm::CallInst &call);

} // namespace kiln::cpu::vectorizer
