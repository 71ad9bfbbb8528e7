//===- sub_group_primitives.hpp - The builtin library's sub-group primitives --===//
//
// The sub-group functions of the builtin library (src/builtins/subgroups.cl) are written on a
// few primitives that each code generator replaces: the sub-group's width, the two ids, a
// shuffle (32- and 64-bit, and among the lanes a ballot names) and a ballot, and the sub-group
// barrier. The width is the kernel's (intel_reqd_sub_group_size or the device's choice); a
// sub-group is that many consecutive work-items in linear local id order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/llvm/device_queries.hpp"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace kiln::compiler {

enum class SubGroupPrimitive { None, Width, LocalId, Id, Shuffle, Ballot, Barrier };

/// Which primitive `callee` is.
inline SubGroupPrimitive subGroupPrimitive(const llvm::Function *callee) {
  if (callee == nullptr || !callee->getName().starts_with("__kiln_sub_group_"))
    return SubGroupPrimitive::None;
  return llvm::StringSwitch<SubGroupPrimitive>(callee->getName())
      .Case("__kiln_sub_group_width", SubGroupPrimitive::Width)
      .Case("__kiln_sub_group_local_id", SubGroupPrimitive::LocalId)
      .Case("__kiln_sub_group_id", SubGroupPrimitive::Id)
      .Cases({"__kiln_sub_group_shuffle_u32", "__kiln_sub_group_shuffle_u64",
              "__kiln_sub_group_shuffle_among_u64"},
             SubGroupPrimitive::Shuffle)
      .Case("__kiln_sub_group_ballot", SubGroupPrimitive::Ballot)
      .Case("__kiln_sub_group_barrier", SubGroupPrimitive::Barrier)
      .Default(SubGroupPrimitive::None);
}

inline SubGroupPrimitive subGroupPrimitive(const llvm::CallBase &call) {
  return subGroupPrimitive(call.getCalledFunction());
}

/// Whether the primitive makes the work-items of a sub-group exchange values or wait for each
/// other: what only a real sub-group (or its emulation) can do.
inline bool crossesLanes(SubGroupPrimitive primitive) {
  return primitive == SubGroupPrimitive::Shuffle || primitive == SubGroupPrimitive::Ballot ||
         primitive == SubGroupPrimitive::Barrier;
}

/// Whether `function` calls a primitive that crosses lanes.
inline bool crossesSubGroupLanes(const llvm::Function &function) {
  for (const llvm::Instruction &instruction : llvm::instructions(function))
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction))
      if (crossesLanes(subGroupPrimitive(*call)))
        return true;
  return false;
}

/// The library's native 32-bit reduction (kiln_primitives.h): `__kiln_sub_group_reduce_u32(x,
/// operation, cluster)`, called only under `__kiln_sub_group_reduces_natively()`. A device with
/// one instruction for it answers true and replaces the calls; the others answer false, and the
/// library's shuffle trees run.
enum class NativeReduction : unsigned {
  Add,
  MinSigned,
  MaxSigned,
  MinUnsigned,
  MaxUnsigned,
  And,
  Or,
  Xor,
};
inline constexpr const char *kNativeReductionQueryName = "__kiln_sub_group_reduces_natively";
inline constexpr const char *kNativeReductionName = "__kiln_sub_group_reduce_u32";

/// Answers the library's question in `module`: `available` says whether the code generator
/// replaces the reductions. Where it does not, they are unreachable and dropped here.
inline void answerNativeReductionQuery(llvm::Module &module, bool available) {
  answerDeviceQuery(module, kNativeReductionQueryName, available);
  if (available)
    return;
  if (llvm::Function *reduction = module.getFunction(kNativeReductionName))
    for (llvm::User *user : llvm::make_early_inc_range(reduction->users()))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(user)) {
        call->replaceAllUsesWith(llvm::PoisonValue::get(call->getType()));
        call->eraseFromParent();
      }
}

} // namespace kiln::compiler
