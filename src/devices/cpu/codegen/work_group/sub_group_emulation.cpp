//===- sub_group_emulation.cpp - Sub-group primitives without SIMD lanes ---===//
#include "devices/cpu/codegen/work_group/sub_group_emulation.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/sub_group_primitives.hpp"
#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"
#include "devices/cpu/codegen/work_group/barrier_regions.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kiln::cpu {

namespace {

using compiler::SubGroupPrimitive;

class SubGroupLowering {
public:
  SubGroupLowering(Function &function, unsigned width, const WorkGroupShape &shape)
      : function_(function), module_(*function.getParent()), width_(width), shape_(shape) {}

  void run() {
    SmallVector<CallInst *, 16> calls;
    for (BasicBlock &block : function_)
      for (Instruction &instruction : block)
        if (auto *call = dyn_cast<CallInst>(&instruction))
          if (compiler::subGroupPrimitive(*call) != SubGroupPrimitive::None)
            calls.push_back(call);
    for (CallInst *call : calls) {
      IRBuilder<> builder(call);
      if (Value *value = replacement(builder, *call))
        call->replaceAllUsesWith(value);
      call->eraseFromParent();
    }
  }

private:
  /// The call's value, computed before it; null for the barrier.
  Value *replacement(IRBuilder<> &builder, CallInst &call) {
    Type *type = call.getType();
    switch (compiler::subGroupPrimitive(call)) {
    case SubGroupPrimitive::Width:
      return ConstantInt::get(type, width_);
    case SubGroupPrimitive::LocalId:
      return builder.CreateTrunc(builder.CreateURem(linearId(builder), i64(width_)), type);
    case SubGroupPrimitive::Id:
      return builder.CreateTrunc(builder.CreateUDiv(linearId(builder), i64(width_)), type);
    case SubGroupPrimitive::Shuffle:
      return width_ == 1 ? call.getArgOperand(0) : exchangedValue(builder, call);
    case SubGroupPrimitive::Ballot: {
      Value *bit = builder.CreateZExt(builder.CreateIsNotNull(call.getArgOperand(0)), type);
      return width_ == 1 ? bit : gatheredBits(builder, bit);
    }
    case SubGroupPrimitive::Barrier:
      if (width_ > 1)
        builder.CreateCall(workGroupBarrier());
      return nullptr;
    case SubGroupPrimitive::None:
      break;
    }
    return nullptr;
  }

  Constant *i64(uint64_t value) {
    return ConstantInt::get(Type::getInt64Ty(module_.getContext()), value);
  }

  uint64_t itemCount() const {
    return shape_.localSize[0] * shape_.localSize[1] * shape_.localSize[2];
  }

  Value *linearId(IRBuilder<> &builder) {
    FunctionCallee localId =
        module_.getOrInsertFunction("__kiln_local_id", builder.getInt64Ty(), builder.getInt32Ty());
    Value *ids[3];
    for (unsigned dim = 0; dim < 3; ++dim)
      ids[dim] = shape_.localSize[dim] == 1
                     ? i64(0)
                     : static_cast<Value *>(builder.CreateCall(localId, {builder.getInt32(dim)}));
    Value *yz = builder.CreateAdd(ids[1], builder.CreateMul(ids[2], i64(shape_.localSize[1])));
    return builder.CreateAdd(ids[0], builder.CreateMul(yz, i64(shape_.localSize[0])), "linear.id");
  }

  FunctionCallee workGroupBarrier() {
    FunctionCallee barrier = module_.getOrInsertFunction("__kiln_work_group_barrier",
                                                         Type::getVoidTy(module_.getContext()));
    cast<Function>(barrier.getCallee())->addFnAttr(Attribute::Convergent);
    return barrier;
  }

  /// The private variable every exchange goes through: one 64-bit value per work-item.
  AllocaInst *exchangeSlot() {
    if (slot_ == nullptr) {
      BasicBlock &prologue = function_.getEntryBlock();
      IRBuilder<> builder(&prologue, prologue.begin());
      slot_ = builder.CreateAlloca(builder.getInt64Ty(), nullptr, "sub.group.exchange");
    }
    return slot_;
  }

  /// The value work-item `item` wrote, read after everyone wrote (the caller waits after).
  Value *readSlotOf(IRBuilder<> &builder, Value *item) {
    FunctionCallee slotOf = module_.getOrInsertFunction(kWorkItemSlotName, builder.getPtrTy(),
                                                        builder.getPtrTy(), builder.getInt64Ty());
    Value *address = builder.CreateCall(slotOf, {exchangeSlot(), item});
    return builder.CreateLoad(builder.getInt64Ty(), address);
  }

  /// Stores `value` (64 bits) as this work-item's and waits for the whole group.
  void publish(IRBuilder<> &builder, Value *value) {
    builder.CreateStore(value, exchangeSlot());
    builder.CreateCall(workGroupBarrier());
  }

  /// The first work-item of the caller's sub-group.
  Value *subGroupBase(IRBuilder<> &builder, Value *linear) {
    return builder.CreateSub(linear, builder.CreateURem(linear, i64(width_)), "sub.group.base");
  }

  Value *exchangedValue(IRBuilder<> &builder, CallInst &call) {
    Value *value = call.getArgOperand(0);
    Type *type = value->getType();
    Value *linear = linearId(builder);
    publish(builder, builder.CreateZExt(value, builder.getInt64Ty()));
    // A lane outside the sub-group is undefined; reading inside the work-group keeps it harmless.
    Value *lane = builder.CreateZExt(
        builder.CreateAnd(call.getArgOperand(1),
                          ConstantInt::get(call.getArgOperand(1)->getType(), width_ - 1)),
        builder.getInt64Ty());
    Value *source = builder.CreateAdd(subGroupBase(builder, linear), lane);
    source = builder.CreateBinaryIntrinsic(Intrinsic::umin, source, i64(itemCount() - 1));
    Value *result = builder.CreateTrunc(readSlotOf(builder, source), type);
    builder.CreateCall(workGroupBarrier());
    return result;
  }

  Value *gatheredBits(IRBuilder<> &builder, Value *bit) {
    Value *linear = linearId(builder);
    publish(builder, bit);
    Value *base = subGroupBase(builder, linear);
    Value *bits = i64(0);
    for (unsigned lane = 0; lane < width_; ++lane) {
      Value *item = builder.CreateAdd(base, i64(lane));
      Value *present = builder.CreateICmpULT(item, i64(itemCount()));
      Value *clamped = builder.CreateBinaryIntrinsic(Intrinsic::umin, item, i64(itemCount() - 1));
      Value *its = builder.CreateSelect(present, readSlotOf(builder, clamped), i64(0));
      bits = builder.CreateOr(bits, builder.CreateShl(its, i64(lane)));
    }
    builder.CreateCall(workGroupBarrier());
    return bits;
  }

  Function &function_;
  Module &module_;
  unsigned width_;
  const WorkGroupShape &shape_;
  AllocaInst *slot_ = nullptr;
};

bool crossesLanes(const BasicBlock &block) {
  for (const Instruction &instruction : block)
    if (auto *call = dyn_cast<CallBase>(&instruction))
      if (compiler::crossesLanes(compiler::subGroupPrimitive(*call)))
        return true;
  return false;
}

/// Whether a primitive that crosses lanes is in a block that only some work-items of a
/// sub-group may reach: between a branch on a value that differs between them and where the
/// branch's sides meet again.
bool crossesLanesUnderDivergence(Function &function) {
  Module &module = *function.getParent();
  vectorizer::ShapeSeeds seeds;
  seeds.localId = module.getFunction("__kiln_local_id");
  seeds.barrier = module.getFunction("__kiln_work_group_barrier");
  vectorizer::ShapeAnalysis shapes(function, seeds);
  PostDominatorTree postDominators(function);
  for (BasicBlock &block : function) {
    Instruction *terminator = block.getTerminator();
    Value *condition = nullptr;
    if (auto *branch = dyn_cast<BranchInst>(terminator); branch && branch->isConditional())
      condition = branch->getCondition();
    else if (auto *choice = dyn_cast<SwitchInst>(terminator))
      condition = choice->getCondition();
    if (condition == nullptr || !shapes.shape(condition).isVarying())
      continue;
    DomTreeNode *node = postDominators.getNode(&block);
    BasicBlock *join = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
    SmallVector<BasicBlock *, 16> work(succ_begin(&block), succ_end(&block));
    SmallPtrSet<BasicBlock *, 32> seen;
    while (!work.empty()) {
      BasicBlock *reached = work.pop_back_val();
      if (reached == join || !seen.insert(reached).second)
        continue;
      if (crossesLanes(*reached))
        return true;
      work.append(succ_begin(reached), succ_end(reached));
    }
  }
  return false;
}

} // namespace

Error lowerSubGroupPrimitives(Function &function, unsigned width, const WorkGroupShape &shape) {
  if (width > 1 && crossesLanesUnderDivergence(function))
    return compiler::codegenError(
        "sub-group functions are called where only some work-items of a sub-group reach them, "
        "in work-groups of " +
        std::to_string(shape.localSize[0]) + "x" + std::to_string(shape.localSize[1]) + "x" +
        std::to_string(shape.localSize[2]) +
        ", which the CPU device runs one work-item at a time: their rows are not whole "
        "sub-groups of " +
        std::to_string(width) +
        " work-items, or the kernel could not be vectorized. A local size along dimension 0 "
        "that is a multiple of " +
        std::to_string(width) + " runs them in SIMD lanes");
  SubGroupLowering(function, width, shape).run();
  return Error::success();
}

void substituteSubGroupWidth(Function &function, unsigned width) {
  SmallVector<CallInst *, 4> calls;
  for (BasicBlock &block : function)
    for (Instruction &instruction : block)
      if (auto *call = dyn_cast<CallInst>(&instruction))
        if (compiler::subGroupPrimitive(*call) == SubGroupPrimitive::Width)
          calls.push_back(call);
  for (CallInst *call : calls) {
    call->replaceAllUsesWith(ConstantInt::get(call->getType(), width));
    call->eraseFromParent();
  }
}

} // namespace kiln::cpu
