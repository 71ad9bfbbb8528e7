//===- interleaved_access.cpp - Vector types read and written across lanes ===//
#include "devices/cpu/codegen/vectorizer/interleaved_access.hpp"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

/// float16 is the widest OpenCL vector type.
constexpr int64_t kMaxFactor = 16;

/// A scalar load or store whose lanes' addresses are 2 to 16 elements apart.
struct Candidate {
  Instruction *access;
  Value *base;    // the address with its constant offsets stripped
  int64_t offset; // the address's bytes past `base`
  int64_t stride; // bytes from lane to lane
  Type *type;
  unsigned position; // in its block
};

std::optional<Candidate> candidateOf(Instruction &instruction, unsigned position,
                                     const ShapeAnalysis &shapes, const DataLayout &layout) {
  Value *pointer = getLoadStorePointerOperand(&instruction);
  if (pointer == nullptr)
    return std::nullopt;
  if (auto *load = dyn_cast<LoadInst>(&instruction); load && !load->isSimple())
    return std::nullopt;
  if (auto *store = dyn_cast<StoreInst>(&instruction); store && !store->isSimple())
    return std::nullopt;
  Type *type = getLoadStoreType(&instruction);
  if (!(type->isIntegerTy() || type->isFloatingPointTy() || type->isPointerTy()) ||
      type->isIntegerTy(1))
    return std::nullopt;
  auto size = int64_t(layout.getTypeStoreSize(type));
  if (uint64_t(size) != layout.getTypeAllocSize(type))
    return std::nullopt;
  Shape shape = shapes.shape(pointer);
  if (!shape.isStrided() || shape.stride() <= size || shape.stride() % size != 0 ||
      shape.stride() / size > kMaxFactor)
    return std::nullopt;
  // Private arrays: each lane's copy is already laid out for its own accesses.
  if (isa<AllocaInst>(getUnderlyingObject(pointer)))
    return std::nullopt;
  APInt offset(layout.getIndexTypeSizeInBits(pointer->getType()), 0);
  Value *base =
      pointer->stripAndAccumulateConstantOffsets(layout, offset, /*AllowNonInbounds=*/true);
  return Candidate{&instruction, base, offset.getSExtValue(), shape.stride(), type, position};
}

} // namespace

InterleavedGroups::InterleavedGroups(Function &function, const ShapeAnalysis &shapes) {
  const DataLayout &layout = function.getDataLayout();

  // Splits accesses gathered between two writes (loads) or two other accesses (stores) into
  // groups: same base, stride and type, and offsets that cover one stride exactly.
  auto formGroups = [&](std::vector<Candidate> &pending) {
    std::stable_sort(pending.begin(), pending.end(), [](const Candidate &a, const Candidate &b) {
      return std::tie(a.base, a.stride, a.type, a.offset) <
             std::tie(b.base, b.stride, b.type, b.offset);
    });
    for (size_t start = 0; start < pending.size();) {
      const Candidate &lead = pending[start];
      auto size = int64_t(layout.getTypeStoreSize(lead.type));
      auto factor = static_cast<unsigned>(lead.stride / size);
      auto belongs = [&](unsigned component) {
        size_t index = start + component;
        if (index >= pending.size())
          return false;
        const Candidate &next = pending[index];
        return next.base == lead.base && next.stride == lead.stride && next.type == lead.type &&
               next.offset == lead.offset + int64_t(component) * size;
      };
      bool complete = true;
      for (unsigned component = 1; component < factor && complete; ++component)
        complete = belongs(component);
      if (!complete) {
        ++start;
        continue;
      }
      InterleavedGroup group;
      group.elementType = lead.type;
      group.factor = factor;
      group.isStore = isa<StoreInst>(lead.access);
      const Candidate *first = &lead, *last = &lead;
      for (unsigned component = 0; component < factor; ++component) {
        const Candidate &member = pending[start + component];
        group.members.push_back(member.access);
        if (member.position < first->position)
          first = &member;
        if (member.position > last->position)
          last = &member;
      }
      group.first = first->access;
      group.last = last->access;
      group.startFromFirst = lead.offset - first->offset;
      group.startAlign = getLoadStoreAlignment(lead.access);
      for (Instruction *member : group.members)
        groupIndex_[member] = static_cast<unsigned>(groups_.size());
      groups_.push_back(std::move(group));
      start += factor;
    }
    pending.clear();
  };

  for (BasicBlock &block : function) {
    std::vector<Candidate> loads, stores;
    unsigned position = 0;
    for (Instruction &instruction : block) {
      ++position;
      if (std::optional<Candidate> candidate = candidateOf(instruction, position, shapes, layout)) {
        bool isLoad = isa<LoadInst>(instruction);
        formGroups(isLoad ? stores : loads);
        (isLoad ? loads : stores).push_back(*candidate);
        continue;
      }
      if (instruction.mayWriteToMemory())
        formGroups(loads);
      if (instruction.mayReadOrWriteMemory())
        formGroups(stores);
    }
    formGroups(loads);
    formGroups(stores);
  }
}

const InterleavedGroup *InterleavedGroups::groupOf(const Instruction *access) const {
  auto found = groupIndex_.find(access);
  return found == groupIndex_.end() ? nullptr : &groups_[found->second];
}

} // namespace kiln::cpu::vectorizer
