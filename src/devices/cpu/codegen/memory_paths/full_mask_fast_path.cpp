//===- full_mask_fast_path.cpp - Plain loads and stores when every lane is active ===//
#include "devices/cpu/codegen/memory_paths/full_mask_fast_path.hpp"

#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"

#include "llvm/ADT/MapVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

struct MaskedAccess {
  IntrinsicInst *call;
  Value *pointer;
  Value *mask;
  Align alignment;
};

/// The operands of a masked load or store with a mask that is not a constant, if `instruction`
/// is one. LLVM 22's intrinsics carry the alignment on the pointer argument, not as an operand.
std::optional<MaskedAccess> nonConstantMaskedAccess(Instruction &instruction) {
  auto *call = dyn_cast<IntrinsicInst>(&instruction);
  if (call == nullptr)
    return std::nullopt;
  unsigned pointerOperand = 0;
  if (call->getIntrinsicID() == Intrinsic::masked_load)
    pointerOperand = 0;
  else if (call->getIntrinsicID() == Intrinsic::masked_store)
    pointerOperand = 1;
  else
    return std::nullopt;
  Value *mask = call->getArgOperand(pointerOperand + 1);
  if (isa<Constant>(mask))
    return std::nullopt;
  Align alignment = call->getParamAlign(pointerOperand).valueOrOne();
  return MaskedAccess{call, call->getArgOperand(pointerOperand), mask, alignment};
}

/// The plain load or store that does what `access` does when every lane is active, built by
/// `builder`.
Instruction *plainAccess(IRBuilder<> &builder, const MaskedAccess &access) {
  IntrinsicInst &call = *access.call;
  Instruction *plain =
      call.getIntrinsicID() == Intrinsic::masked_load
          ? static_cast<Instruction *>(builder.CreateAlignedLoad(
                call.getType(), access.pointer, access.alignment, call.getName() + ".full"))
          : builder.CreateAlignedStore(call.getArgOperand(0), access.pointer, access.alignment);
  plain->copyMetadata(call);
  return plain;
}

/// Replaces `access` with its plain form, where its mask is known to be full.
void replaceWithPlainAccess(const MaskedAccess &access) {
  IRBuilder<> builder(access.call);
  access.call->replaceAllUsesWith(plainAccess(builder, access));
  access.call->eraseFromParent();
}

/// if (mask is empty) nothing; else the masked access.
void branchOnEmptyMask(const MaskedAccess &access) {
  IntrinsicInst &call = *access.call;
  // Guarded stores whose guard is rarely true (a kernel's border case) come here with no lane
  // active, and a masked store costs as much with an empty mask as with a full one (microcoded
  // on Zen).
  IRBuilder<> builder(&call);
  Value *none = noLaneSet(builder, access.mask, "mask.none");
  branchToFastPath(none, call, [&](IRBuilder<> &) -> Value * {
    return call.getIntrinsicID() == Intrinsic::masked_load ? call.getArgOperand(2) : nullptr;
  });
}

/// if (mask is full) plain access; else if (mask is empty) nothing; else the masked one.
void branchOnFullOrEmptyMask(const MaskedAccess &access) {
  IntrinsicInst &call = *access.call;
  IRBuilder<> builder(&call);
  Value *full = allLanesSet(builder, access.mask, "mask.full");
  branchToFastPath(full, call,
                   [&](IRBuilder<> &fast) -> Value * { return plainAccess(fast, access); });
  // The masked form now sits on the "not full" side.
  branchOnEmptyMask(access);
}

/// Straight-line code from the first to the last of two or more masked accesses of one block
/// that share a mask.
struct MaskedSegment {
  Instruction *first;
  Instruction *last;
  Value *mask;
};

/// Segments longer than this (in instructions) keep a branch per access: the copy for the full
/// mask doubles their code.
constexpr unsigned kLongestVersionedSegment = 4096;

/// For each block, the segment of the mask that the most of its masked accesses share, when
/// at least two do.
SmallVector<MaskedSegment, 8> maskedSegments(Function &function) {
  struct Candidate {
    MaskedSegment segment;
    unsigned accesses = 0, firstPosition = 0, lastPosition = 0;
  };
  SmallVector<MaskedSegment, 8> segments;
  for (BasicBlock &block : function) {
    MapVector<Value *, Candidate> byMask;
    unsigned position = 0;
    for (Instruction &instruction : block) {
      ++position;
      std::optional<MaskedAccess> access = nonConstantMaskedAccess(instruction);
      if (!access)
        continue;
      Candidate &candidate = byMask[access->mask];
      if (candidate.accesses++ == 0) {
        candidate.segment = {&instruction, &instruction, access->mask};
        candidate.firstPosition = position;
      }
      candidate.segment.last = &instruction;
      candidate.lastPosition = position;
    }
    const Candidate *best = nullptr;
    for (const auto &[mask, candidate] : byMask)
      if (candidate.accesses >= 2 && (!best || candidate.accesses > best->accesses) &&
          candidate.lastPosition - candidate.firstPosition < kLongestVersionedSegment)
        best = &candidate;
    if (best)
      segments.push_back(best->segment);
  }
  return segments;
}

/// Moves the instructions of `segment` that neither touch memory nor depend on what it loads
/// (address arithmetic, mostly) before it, so that both copies share them: the copy is smaller,
/// and later steps see one address where both copies read the same (the strided prefetches
/// would otherwise fetch each line twice).
void hoistIndependentArithmetic(const MaskedSegment &segment) {
  SmallPtrSet<const Instruction *, 32> staying;
  SmallVector<Instruction *, 32> hoisted;
  for (Instruction &instruction :
       make_range(segment.first->getIterator(), std::next(segment.last->getIterator()))) {
    bool dependsOnSegment = any_of(instruction.operands(), [&](const Use &operand) {
      auto *definition = dyn_cast<Instruction>(operand.get());
      return definition != nullptr && staying.contains(definition);
    });
    if (dependsOnSegment || instruction.mayReadOrWriteMemory() ||
        !isSafeToSpeculativelyExecute(&instruction))
      staying.insert(&instruction);
    else
      hoisted.push_back(&instruction);
  }
  for (Instruction *instruction : hoisted)
    instruction->moveBefore(segment.first->getIterator());
}

/// Gives `segment` a copy that runs when its mask is full, in which the accesses under that mask
/// are plain; the original runs otherwise. Returns the original's accesses under that mask,
/// which only run when it is not full.
SmallVector<MaskedAccess, 8> versionOnFullMask(const MaskedSegment &segment) {
  hoistIndependentArithmetic(segment);
  BasicBlock *head = segment.first->getParent();
  DominatorTree *noDominators = nullptr;
  BasicBlock *partial = SplitBlock(head, segment.first->getIterator(), noDominators, nullptr,
                                   nullptr, head->getName() + ".partial.mask");
  BasicBlock *join = SplitBlock(partial, std::next(segment.last->getIterator()), noDominators,
                                nullptr, nullptr, head->getName() + ".mask.join");
  ValueToValueMapTy clones;
  BasicBlock *full = CloneBasicBlock(partial, clones, ".full.mask", head->getParent());
  full->moveAfter(head);
  SmallVector<BasicBlock *, 1> cloned{full};
  remapInstructionsInBlocks(cloned, clones);
  // Values of the segment used after it: a phi of the two copies.
  for (Instruction &original : *partial) {
    SmallVector<Use *, 4> usesAfter;
    for (Use &use : original.uses())
      if (cast<Instruction>(use.getUser())->getParent() != partial)
        usesAfter.push_back(&use);
    if (usesAfter.empty())
      continue;
    PHINode *merged = PHINode::Create(original.getType(), 2, original.getName() + ".merged");
    merged->insertBefore(join->begin());
    merged->addIncoming(&original, partial);
    merged->addIncoming(clones[&original], full);
    for (Use *use : usesAfter)
      use->set(merged);
  }
  auto accessesUnderSegmentMask = [&](BasicBlock &block) {
    SmallVector<MaskedAccess, 8> accesses;
    for (Instruction &instruction : block)
      if (std::optional<MaskedAccess> access = nonConstantMaskedAccess(instruction);
          access && access->mask == segment.mask)
        accesses.push_back(*access);
    return accesses;
  };
  SmallVector<MaskedAccess, 8> partialAccesses = accessesUnderSegmentMask(*partial);
  for (const MaskedAccess &access : accessesUnderSegmentMask(*full))
    replaceWithPlainAccess(access);
  Instruction *branch = head->getTerminator();
  IRBuilder<> builder(branch);
  builder.CreateCondBr(allLanesSet(builder, segment.mask, "mask.full"), full, partial);
  branch->eraseFromParent();
  return partialAccesses;
}

} // namespace

unsigned addFullMaskFastPaths(Function &function) {
  // Accesses that share a mask in one block get one test for the lot: with a branch per
  // access, the code between the branches could not be scheduled across them, and every value
  // loaded before the first use was live at once (the suite's Sobel filter, 8 loads of 4
  // vectors each at 64 lanes, spilled).
  // On the partial side, the mask is known not to be full; it may still be empty.
  DenseSet<const Instruction *> versioned;
  SmallVector<MaskedAccess, 16> partial;
  for (const MaskedSegment &segment : maskedSegments(function))
    for (const MaskedAccess &access : versionOnFullMask(segment)) {
      partial.push_back(access);
      versioned.insert(access.call);
    }
  for (const MaskedAccess &access : partial)
    branchOnEmptyMask(access);
  SmallVector<MaskedAccess, 16> accesses;
  for (Instruction &instruction : instructions(function))
    if (std::optional<MaskedAccess> access = nonConstantMaskedAccess(instruction);
        access && !versioned.contains(access->call))
      accesses.push_back(*access);
  for (const MaskedAccess &access : accesses)
    branchOnFullOrEmptyMask(access);
  return partial.size() + accesses.size();
}

} // namespace kiln::cpu
