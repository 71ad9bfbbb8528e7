//===- work_item_vectorizer.hpp - Work-items in the lanes of vectors ------===//
//
// Whole-function vectorization over work-items: rewrites a work-group function's body (one
// work-item's code, before it becomes loops over the work-items) so that it runs `width`
// consecutive work-items of dimension 0, a SIMD group, in the lanes of vectors, whatever its
// control flow. Afterwards __kiln_local_id(0) names the group's first work-item; the
// work-item loops (barrier_regions.hpp) then advance a whole group per iteration. Lanes past
// the end of the work-group are masked off, so any local size works.
//
// The steps: scalarize OpenCL vector types (each component becomes a lane vector of its own);
// find how every value varies across lanes (vector_shape.hpp); turn divergent control flow
// into masks (control_linearization.hpp); widen (instruction_widening.hpp). The work happens on
// a copy: a kernel the vectorizer cannot handle keeps its scalar code, and the reason is
// returned.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Function.h"
#include "llvm/Target/TargetMachine.h"

#include <string>

namespace kiln::cpu {

struct WorkItemVectorization {
  unsigned width = 1;        // lanes per SIMD group; 1 when the kernel stays scalar
  std::string notVectorized; // why, when it stays scalar
  /// For a kernel that stays scalar because it already computes on whole vector registers:
  /// how many work-items one iteration of the work-item loop should run interleaved (1: one),
  /// as many as the vector registers hold, at most 8.
  unsigned interleave = 1;
  /// Whether those work-items' chains of dependent operations may run side by side
  /// (chain_interleaving.hpp): what their loops keep in vector registers fits there.
  bool chainsSideBySide = false;
  /// The size of one work-item's code and, when the vectorizer got that far, of the vectorized
  /// code, in the code generator's instructions (code_growth.hpp); 0 where not measured.
  uint64_t scalarInstructions = 0;
  uint64_t vectorInstructions = 0;
};

/// `function`'s entry block is the work-group prologue (uniform code that holds the allocas);
/// the rest is the work-item body. `width` is the SIMD group's lanes, or 0 to choose them from
/// the target, the kernel and the work-groups' size along dimension 0, `localSizeX`: the lanes
/// of the target's preferred vectors, times 2 or 4 when the kernel's varying values leave room
/// in the vector registers for more (more independent vectors hide the latency of dependent
/// arithmetic), and up to 64 lanes, as many as the registers hold, when its loops only compute;
/// then the widest of those that divides `localSizeX`, or, when none
/// does, no wider than the group.
/// `mayInterleave`: with width 0, a kernel that computes on whole vector registers may stay
/// scalar with its work-items interleaved instead (WorkItemVectorization::interleave).
WorkItemVectorization vectorizeWorkItems(llvm::Function &function, unsigned width,
                                         llvm::TargetMachine &machine, uint64_t localSizeX,
                                         bool mayInterleave = true);

/// The bits of the vectors the target prefers for `function` (its TargetTransformInfo's fixed
/// vector register width: 256 with AVX2, and with AVX-512 unless the target prefers 256).
unsigned vectorRegisterBits(const llvm::Function &function, llvm::TargetMachine &machine);

/// The 32-bit lanes of those vectors (at least 1).
unsigned vectorRegisterLanes(const llvm::Function &function, llvm::TargetMachine &machine);

/// Whether the target is x86 with AVX-512: mask registers, and permutes, compresses and expands
/// of 32-bit lanes.
bool hasAvx512(llvm::TargetMachine &machine);

/// The SIMD width the automatic choice starts from: a local size along dimension 0 that is a
/// multiple of it leaves no lane idle (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE).
unsigned preferredSimdWidth(llvm::Function &function, llvm::TargetMachine &machine);

/// The widest SIMD group the automatic choice would give the kernel's values, before any local
/// size narrows it: the width of the kernel's sub-groups when it requires none (the same for
/// every launch, as sub-groups must be).
unsigned widestAffordedSimdWidth(llvm::Function &function, llvm::TargetMachine &machine);

/// Specializes a vectorized function for work-groups whose SIMD groups are all full: the mask
/// of active lanes becomes the constant "every lane", which the optimizer then folds into the
/// masked loads, stores, gathers and scatters.
void assumeEveryLaneActive(llvm::Function &function);

/// Whether `value` is the mask of a SIMD group's active lanes. Its first lane is always set: a
/// SIMD group starts at a work-item of the work-group.
bool isActiveLanesMask(const llvm::Value &value);

/// For work-groups whose size along dimension 0 is not a multiple of the SIMD width: gives the
/// vectorized `function` a second copy of its body in which every lane is active, run by each
/// SIMD group that lies wholly inside the work-group, so that only the last one pays for masks.
/// Kernels with barriers keep one body (every SIMD group must reach the same barrier calls).
void separateFullSimdGroups(llvm::Function &function);

} // namespace kiln::cpu
