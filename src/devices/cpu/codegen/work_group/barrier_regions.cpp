//===- barrier_regions.cpp - Work-item loops split at barriers -----------===//
//
// The steps, in order:
//   1. Put every barrier call in a block of its own ("barrier block"), followed by a fresh,
//      empty block where the region after it starts; turn every return into a branch to one
//      exit block, which acts as a final barrier.
//   2. Find the regions: the blocks reachable from each region start without entering a
//      barrier block or the exit.
//   3. Find the SSA values live across a barrier: their definition and some use are separated
//      by a barrier on some path. Recompute after the barrier those that only the local id and
//      the work-group's values give (work_item_rematerialization.hpp); demote the others to
//      memory. Without yields, find the values the whole work-group holds alike
//      (work_group_uniform_values.hpp): their memory is one variable, not one per work-item.
//   4. Give every other alloca (the private variables and the demoted values) one slot per
//      work-item, laid out structure-of-arrays in WorkGroupParams::privateMemory, or, when
//      the work-group's slots are few and no turn returns before it has finished, in a variable
//      of the function, which LLVM may keep in registers once the region loops are unrolled.
//   5. Clone each region into a loop nest over the work-group's work-items. A work-item that
//      leaves the region records which barrier it reached; when the loop ends, a dispatcher
//      starts the region after that barrier, or returns when every work-item has finished.
//      Work-items that returned early are skipped by later regions, as GPUs treat them. Where
//      every branch that chooses a region's exit tests a work-group value, the work-items
//      cannot part, and the region's loop records its exit once for all of them.
//      A yield (spin_loop_yields.hpp) cuts regions as a barrier does, but the work-items need
//      not all reach it: the dispatcher runs the regions where work-items wait at a yield in a
//      cycle, and a barrier's region only when none does. A turn (grid_stride_turns.hpp) is a
//      yield at which the function returns before the dispatcher goes on, and where a later
//      call resumes it.
//   6. Delete the original body.
//
//===----------------------------------------------------------------------===//
#include "devices/cpu/codegen/work_group/barrier_regions.hpp"

#include "devices/cpu/codegen/work_group/computation_copy.hpp"
#include "devices/cpu/codegen/work_group/work_group_uniform_values.hpp"
#include "devices/cpu/codegen/work_group/work_item_rematerialization.hpp"
#include "devices/cpu/work_group_abi.hpp"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/InstructionSimplify.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace kiln::cpu {
namespace {

/// The "next region" of a work-item that has returned.
constexpr uint32_t kFinished = ~0u;

/// The most bytes of slots a work-group keeps in a variable of its function (on the worker's
/// stack) rather than in WorkGroupParams::privateMemory: room for a few values of 256 work-items.
constexpr uint64_t kSlotsInVariable = 8192;

class WorkItemLoopBuilder {
public:
  WorkItemLoopBuilder(Function &function, const WorkItemLoopInputs &inputs)
      : function_(function), inputs_(inputs), context_(function.getContext()),
        i32_(Type::getInt32Ty(context_)), i64_(Type::getInt64Ty(context_)) {}

  uint64_t run() {
    for (BasicBlock &block : function_)
      if (&block != inputs_.prologue)
        originalBody_.push_back(&block);
    isolateBarriers();
    redirectReturns();
    findRegions();
    if (hasBarriers())
      simplifyBody();
    if (hasBarriers() && !hasYields()) {
      uniform_.emplace(function_, inputs_.prologue, inputs_.groupPrimitives);
      workItemsStayTogether_ =
          all_of(regions_, [&](const Region &region) { return workGroupChoosesExit(region); });
    }
    if (hasBarriers()) {
      moveAllocaAddressesOutOfPrologue();
      rematerializeWorkItemValues(
          originalBody_, inputs_.prologue, inputs_.localId,
          [&](Instruction &value) { return isLiveAcrossBarrier(value); },
          [&](const Value &value) { return isWorkGroupUniform(value); });
    }
    demoteValuesLiveAcrossBarriers();
    uint64_t bytesPerItem = layOutPrivateStorage();
    emitLoops();
    eraseOriginalBody();
    return bytesPerItem;
  }

private:
  struct Region {
    BasicBlock *start = nullptr;
    SetVector<BasicBlock *> blocks;
    SetVector<BasicBlock *> exits; // barrier blocks and the exit block it can reach
  };

  /// One work-item loop nest being emitted for a region.
  struct RegionLoop {
    BasicBlock *entry = nullptr; // resets the pending region, starts the loops
    BasicBlock *itemHeader = nullptr;
    BasicBlock *itemLatch = nullptr;
    Value *id[3] = {nullptr, nullptr, nullptr};
    Value *slotIndex = nullptr; // this iteration's SIMD group, numbered across the work-group
    DenseMap<AllocaInst *, Value *> slotAddress; // this work-item's slot of each alloca
  };

  bool isBarrierLike(const BasicBlock *block) const { return regionAfter_.count(block) != 0; }
  bool hasBarriers() const { return regions_.size() > 1; }
  bool hasYields() const { return firstYieldRegion_ < regions_.size(); }
  bool hasTurns() const { return firstTurnRegion_ < regions_.size(); }

  /// A fresh empty block on the only edge out of `from`: where a region starts.
  BasicBlock *insertRegionStart(BasicBlock *from) {
    BasicBlock *to = from->getSingleSuccessor();
    BasicBlock *start = BasicBlock::Create(context_, "region.start", &function_, to);
    BranchInst::Create(to, start);
    from->getTerminator()->setSuccessor(0, start);
    to->replacePhiUsesWith(from, start);
    originalBody_.push_back(start);
    return start;
  }

  /// Barriers first, then yields: a region's index tells which kind of call starts it.
  void isolateBarriers() {
    regions_.push_back({insertRegionStart(inputs_.prologue), {}, {}});
    isolateCallsTo(inputs_.barrier);
    firstYieldRegion_ = static_cast<uint32_t>(regions_.size());
    isolateCallsTo(inputs_.yield);
    firstTurnRegion_ = static_cast<uint32_t>(regions_.size());
    isolateCallsTo(inputs_.turn);
  }

  void isolateCallsTo(Function *callee) {
    if (callee == nullptr)
      return;
    SmallVector<CallInst *, 8> calls;
    for (User *user : callee->users())
      if (auto *call = dyn_cast<CallInst>(user); call && call->getFunction() == &function_)
        calls.push_back(call);
    for (CallInst *call : calls) {
      BasicBlock *block = call->getParent();
      if (&block->front() != call) {
        block = SplitBlock(block, call);
        originalBody_.push_back(block);
      }
      originalBody_.push_back(SplitBlock(block, call->getNextNode()));
      regionAfter_[block] = static_cast<uint32_t>(regions_.size());
      regions_.push_back({insertRegionStart(block), {}, {}});
    }
  }

  void redirectReturns() {
    exit_ = BasicBlock::Create(context_, "work.item.exit", &function_);
    new UnreachableInst(context_, exit_);
    originalBody_.push_back(exit_);
    regionAfter_[exit_] = kFinished;
    SmallVector<ReturnInst *, 4> returns;
    for (BasicBlock *block : originalBody_)
      if (auto *ret = dyn_cast<ReturnInst>(block->getTerminator()))
        returns.push_back(ret);
    for (ReturnInst *ret : returns) {
      BranchInst::Create(exit_, ret->getIterator());
      ret->eraseFromParent();
    }
  }

  void findRegions() {
    for (Region &region : regions_) {
      SmallVector<BasicBlock *, 16> worklist{region.start};
      region.blocks.insert(region.start);
      while (!worklist.empty()) {
        BasicBlock *block = worklist.pop_back_val();
        for (BasicBlock *successor : successors(block)) {
          if (isBarrierLike(successor))
            region.exits.insert(successor);
          else if (region.blocks.insert(successor))
            worklist.push_back(successor);
        }
      }
    }
  }

  /// Whether `value` is an address into one of the prologue's allocas, or a vector of such
  /// addresses, that the prologue computes (the vectorizer puts a constant offset into a private
  /// array, such as a vector element's component, and its lanes' copies beside the array).
  bool isPrologueAllocaAddress(const Value *value) const {
    const auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr || instruction->getParent() != inputs_.prologue ||
        !isa<GetElementPtrInst, CastInst, InsertElementInst, ShuffleVectorInst>(instruction))
      return false;
    return any_of(instruction->operands(), [&](const Use &operand) {
      return isa<AllocaInst>(operand.get()) || isPrologueAllocaAddress(operand.get());
    });
  }

  /// With barriers, each SIMD group's copy of an alloca is a slot of the private storage that
  /// only the work-item loops know (step 4): an address the prologue computes from the alloca
  /// would name its one stack copy, which every SIMD group would share. The body's uses get the
  /// address computed where they are instead.
  void moveAllocaAddressesOutOfPrologue() {
    auto isAddress = [&](const Value *value) { return isPrologueAllocaAddress(value); };
    for (BasicBlock *block : originalBody_)
      for (Instruction &instruction : *block)
        for (Use &operand : instruction.operands())
          if (isAddress(operand.get()))
            operand.set(copyComputation(operand.get(), insertionPointFor(operand), isAddress));
  }

  /// The vectorizer leaves masks that fold (a select on an all-true mask, `m | ~m`): folded
  /// before anything is kept across a barrier, they neither take a slot nor hide what a value
  /// is computed from.
  void simplifyBody() {
    SimplifyQuery query(function_.getDataLayout());
    for (BasicBlock *block : originalBody_)
      for (Instruction &instruction : make_early_inc_range(*block)) {
        Value *simpler = simplifyInstruction(&instruction, query);
        if (simpler == nullptr)
          simpler = simplifyMask(instruction, query);
        if (simpler == nullptr)
          continue;
        instruction.replaceAllUsesWith(simpler);
        if (isInstructionTriviallyDead(&instruction))
          instruction.eraseFromParent();
      }
  }

  /// A select of masks is an and or an or: where one of those folds (the mask of a join after
  /// an if and its else, `m ? true : !m`), the folded value.
  static Value *simplifyMask(Instruction &instruction, const SimplifyQuery &query) {
    auto *select = dyn_cast<SelectInst>(&instruction);
    if (select == nullptr || !select->getType()->isIntOrIntVectorTy(1))
      return nullptr;
    if (match(select->getTrueValue(), m_One()))
      return simplifyOrInst(select->getCondition(), select->getFalseValue(), query);
    if (match(select->getFalseValue(), m_Zero()))
      return simplifyAndInst(select->getCondition(), select->getTrueValue(), query);
    return nullptr;
  }

  /// Whether every work-item that runs `region` leaves it through the same exit: the work-items
  /// start it together, a branch on a value the work-group holds alike keeps them together, and
  /// where another branch parts them, either each can only go on to one and the same exit, or
  /// they meet again before any.
  bool workGroupChoosesExit(const Region &region) const {
    if (region.exits.size() < 2)
      return true;
    DenseMap<const BasicBlock *, BitVector> reachable = exitsReachableInRegion(region);
    std::optional<DenseMap<const BasicBlock *, BitVector>> onEveryWayOut; // when first needed
    for (BasicBlock *block : region.blocks) {
      Instruction *terminator = block->getTerminator();
      if (terminator->getNumSuccessors() < 2 || reachable[block].count() < 2)
        continue;
      const Value *condition = nullptr;
      if (auto *branch = dyn_cast<BranchInst>(terminator))
        condition = branch->getCondition();
      else if (auto *choice = dyn_cast<SwitchInst>(terminator))
        condition = choice->getCondition();
      if (condition != nullptr && uniform_->isUniform(condition))
        continue;
      if (!onEveryWayOut)
        onEveryWayOut = blocksOnEveryWayOut(region);
      if (!partedWorkItemsMeet(region, block, *onEveryWayOut))
        return false;
    }
    return true;
  }

  /// For each block of `region`, the exits (bits in the order of region.exits) it can go on to.
  static DenseMap<const BasicBlock *, BitVector> exitsReachableInRegion(const Region &region) {
    unsigned exitCount = region.exits.size();
    DenseMap<const BasicBlock *, BitVector> reachable;
    for (BasicBlock *block : region.blocks)
      reachable[block] = BitVector(exitCount);
    for (bool grew = true; grew;) {
      grew = false;
      for (BasicBlock *block : region.blocks) {
        BitVector exits(exitCount);
        for (BasicBlock *successor : successors(block)) {
          if (region.blocks.contains(successor))
            exits |= reachable[successor];
          else
            exits.set(llvm::find(region.exits, successor) - region.exits.begin());
        }
        if (exits != reachable[block]) {
          reachable[block] = std::move(exits);
          grew = true;
        }
      }
    }
    return reachable;
  }

  /// For each block of `region`, the blocks of the region (bits in the order of region.blocks)
  /// that every path from it to an exit goes through, itself included: its post-dominators in
  /// the region, where two exits share none.
  static DenseMap<const BasicBlock *, BitVector> blocksOnEveryWayOut(const Region &region) {
    unsigned count = region.blocks.size();
    DenseMap<const BasicBlock *, BitVector> onEveryWay;
    for (BasicBlock *block : region.blocks)
      onEveryWay[block] = BitVector(count, true);
    for (bool shrank = true; shrank;) {
      shrank = false;
      for (auto [index, block] : enumerate(region.blocks)) {
        BitVector ways = throughEverySuccessor(region, block, onEveryWay);
        ways.set(index);
        if (ways != onEveryWay[block]) {
          onEveryWay[block] = std::move(ways);
          shrank = true;
        }
      }
    }
    return onEveryWay;
  }

  /// The blocks of `region` on every path from each successor of `block` to an exit.
  static BitVector
  throughEverySuccessor(const Region &region, BasicBlock *block,
                        const DenseMap<const BasicBlock *, BitVector> &onEveryWay) {
    BitVector common(region.blocks.size(), !succ_empty(block));
    for (BasicBlock *successor : successors(block)) {
      auto found = onEveryWay.find(successor);
      if (found == onEveryWay.end())
        return BitVector(region.blocks.size()); // an exit: no block of the region lies past it
      common &= found->second;
    }
    return common;
  }

  /// Whether some block of `region` other than `parting` lies on every path from `parting` to
  /// the region's exits: the work-items a branch there sends different ways meet there again
  /// before any exit.
  static bool partedWorkItemsMeet(const Region &region, BasicBlock *parting,
                                  const DenseMap<const BasicBlock *, BitVector> &onEveryWayOut) {
    BitVector meeting = throughEverySuccessor(region, parting, onEveryWayOut);
    meeting.reset(llvm::find(region.blocks, parting) - region.blocks.begin());
    return meeting.any();
  }

  /// Whether every work-item of the work-group holds `value` alike: a value the analysis found,
  /// or a read of the one variable such a value was demoted to.
  bool isWorkGroupUniform(const Value &value) const {
    if (const auto *load = dyn_cast<LoadInst>(&value))
      if (const auto *variable = dyn_cast<AllocaInst>(load->getPointerOperand());
          variable && uniformVariables_.contains(variable))
        return true;
    return uniform_ && uniform_->isUniform(&value);
  }

  /// Whether some path from `value`'s definition to one of its uses crosses a barrier.
  bool isLiveAcrossBarrier(Instruction &value) const {
    BasicBlock *definition = value.getParent();
    for (Use &use : value.uses()) {
      auto *user = cast<Instruction>(use.getUser());
      BasicBlock *useBlock =
          isa<PHINode>(user) ? cast<PHINode>(user)->getIncomingBlock(use) : user->getParent();
      if (useBlock == definition)
        continue;
      SmallVector<BasicBlock *, 16> worklist{useBlock};
      SmallPtrSet<BasicBlock *, 16> visited{useBlock};
      while (!worklist.empty()) {
        BasicBlock *block = worklist.pop_back_val();
        if (isBarrierLike(block))
          return true;
        for (BasicBlock *predecessor : predecessors(block))
          if (predecessor != definition && visited.insert(predecessor).second)
            worklist.push_back(predecessor);
      }
    }
    return false;
  }

  void demoteValuesLiveAcrossBarriers() {
    if (!hasBarriers())
      return;
    auto allocaPoint = std::optional<BasicBlock::iterator>(inputs_.prologue->begin());
    // Demoting a PHI leaves a reload at the start of its block, which may itself be live
    // across a barrier: repeat until no value is.
    for (;;) {
      SmallVector<Instruction *, 32> live;
      for (BasicBlock *block : originalBody_)
        for (Instruction &instruction : *block)
          if (!instruction.use_empty() && !isa<AllocaInst>(instruction) &&
              isLiveAcrossBarrier(instruction))
            live.push_back(&instruction);
      if (live.empty())
        return;
      for (Instruction *instruction : live) {
        bool uniform = isWorkGroupUniform(*instruction);
        AllocaInst *variable = nullptr;
        if (auto *phi = dyn_cast<PHINode>(instruction)) {
          if (uniform_)
            uniform_->forget(phi);
          variable = DemotePHIToStack(phi, allocaPoint);
        } else {
          variable = DemoteRegToStack(*instruction, false, allocaPoint);
        }
        if (uniform && variable != nullptr)
          uniformVariables_.insert(variable);
      }
    }
  }

  /// Structure-of-arrays slots for every alloca: work-item i's copy of alloca a lives at
  /// privateMemory + offset(a) * itemCount + i * stride(a).
  uint64_t layOutPrivateStorage() {
    if (!hasBarriers())
      return 0;
    IRBuilder<> builder(inputs_.prologue, inputs_.prologue->begin());
    if (!workItemsStayTogether_)
      next_ = builder.CreateAlloca(i32_, nullptr, "next.region");
    const DataLayout &layout = function_.getDataLayout();
    uint64_t total = 0;
    for (Instruction &instruction : *inputs_.prologue) {
      auto *alloca = dyn_cast<AllocaInst>(&instruction);
      if (alloca == nullptr || uniformVariables_.contains(alloca))
        continue;
      std::optional<TypeSize> size = alloca->getAllocationSize(layout);
      uint64_t alignment = alloca->getAlign().value();
      uint64_t stride = alignTo(size ? size->getFixedValue() : 0, alignment);
      uint64_t offset = alignTo(total, alignment);
      slots_.push_back({alloca, offset, stride});
      total = offset + stride;
    }
    slotBytes_ = total;
    pending_ = builder.CreateAlloca(i32_, nullptr, "pending.region");
    for (AllocaInst *variable : uniformVariables_)
      regionCopy_[variable] = builder.CreateAlloca(variable->getAllocatedType(), nullptr,
                                                   variable->getName() + ".in.region");
    return total;
  }

  void emitLoops() {
    BasicBlock *returnBlock = BasicBlock::Create(context_, "work.group.done", &function_);
    if (hasTurns())
      new StoreInst(ConstantInt::get(i32_, 0), inputs_.turnState, returnBlock);
    ReturnInst::Create(context_, returnBlock);
    BasicBlock *dispatch = returnBlock;
    if (hasBarriers())
      dispatch = BasicBlock::Create(context_, "dispatch", &function_);
    if (hasTurns())
      turnReturn_ = emitTurnReturn();

    std::vector<RegionLoop> loops(regions_.size());
    for (uint32_t index = 0; index < regions_.size(); ++index)
      loops[index] =
          emitRegionLoop(index, hasYields() ? chooseNextRegion(index, dispatch) : dispatch);

    if (hasBarriers()) {
      IRBuilder<> builder(dispatch);
      Value *pending = builder.CreateLoad(i32_, pending_, "pending");
      SwitchInst *choose = builder.CreateSwitch(pending, returnBlock, regions_.size() - 1);
      for (uint32_t index = 1; index < regions_.size(); ++index)
        choose->addCase(builder.getInt32(index), loops[index].entry);
    }
    inputs_.prologue->getTerminator()->setSuccessor(
        0, hasTurns() ? emitResumption(loops[0].entry, dispatch) : loops[0].entry);
  }

  /// Where the function returns at a turn: the region to go on from, in the turn state.
  BasicBlock *emitTurnReturn() {
    BasicBlock *block = BasicBlock::Create(context_, "turn.return", &function_);
    IRBuilder<> builder(block);
    builder.CreateStore(builder.CreateLoad(i32_, pending_, "turn.next"), inputs_.turnState);
    builder.CreateRetVoid();
    return block;
  }

  /// After the prologue: a first call starts at region 0, a later one at its turn's region.
  BasicBlock *emitResumption(BasicBlock *start, BasicBlock *dispatch) {
    BasicBlock *block = BasicBlock::Create(context_, "turn.resume", &function_);
    IRBuilder<> builder(block);
    Value *region = builder.CreateLoad(i32_, inputs_.turnState, "turn.region");
    builder.CreateStore(region, pending_);
    builder.CreateCondBr(builder.CreateICmpEQ(region, builder.getInt32(0)), start, dispatch);
    return block;
  }

  /// One bottom-tested loop level (every local size is at least 1): returns the induction
  /// variable; `body` is where the level's header falls through to.
  struct LoopLevel {
    BasicBlock *header;
    PHINode *index;
  };

  /// Loop metadata asking unroll-and-jam to run `count` iterations of the loop at once.
  MDNode *unrollAndJamRequest(unsigned count) {
    Metadata *request[] = {
        MDString::get(context_, "llvm.loop.unroll_and_jam.count"),
        ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(context_), count))};
    Metadata *operands[] = {nullptr, MDNode::get(context_, request)};
    MDNode *loopId = MDNode::getDistinct(context_, operands);
    loopId->replaceOperandWith(0, loopId); // a loop id refers to itself
    return loopId;
  }

  RegionLoop emitRegionLoop(uint32_t regionIndex, BasicBlock *after) {
    Region &region = regions_[regionIndex];
    RegionLoop loop;
    std::string suffix = (Twine(".") + Twine(regionIndex)).str();
    loop.entry = BasicBlock::Create(context_, "region" + suffix, &function_);
    IRBuilder<> builder(loop.entry);
    if (hasBarriers())
      builder.CreateStore(builder.getInt32(kFinished), pending_);
    // What each work-group value held when the region started.
    SmallVector<Value *, 4> uniformAtStart;
    for (AllocaInst *variable : uniformVariables_)
      uniformAtStart.push_back(builder.CreateLoad(variable->getAllocatedType(), variable,
                                                  variable->getName() + ".at.start"));

    // Loop headers z, y, x (x innermost: consecutive work-items are adjacent in memory).
    LoopLevel levels[3];
    BasicBlock *previous = loop.entry;
    for (int dim = 2; dim >= 0; --dim) {
      const char *axis[] = {"x", "y", "z"};
      BasicBlock *header =
          BasicBlock::Create(context_, Twine("item.") + axis[dim] + suffix, &function_);
      builder.SetInsertPoint(previous);
      builder.CreateBr(header);
      builder.SetInsertPoint(header);
      PHINode *index = builder.CreatePHI(i64_, 2, axis[dim]);
      index->addIncoming(builder.getInt64(0), previous);
      levels[dim] = {header, index};
      loop.id[dim] = index;
      previous = header;
    }
    loop.itemHeader = levels[0].header;
    builder.SetInsertPoint(loop.itemHeader);
    loop.slotIndex = builder.CreateAdd(
        builder.CreateUDiv(loop.id[0], builder.getInt64(inputs_.simdWidth)),
        builder.CreateMul(
            groupsAlongX(),
            builder.CreateAdd(loop.id[1], builder.CreateMul(inputs_.localSize[1], loop.id[2]))),
        "simd.group.index");
    for (const PrivateSlot &slot : slots_)
      loop.slotAddress[slot.alloca] = slotAddress(builder, slot, loop.slotIndex);
    // Each SIMD group starts from the work-group values as the region found them: the groups
    // before it may already have stored the next ones.
    for (auto [variable, atStart] : zip_equal(uniformVariables_, uniformAtStart))
      builder.CreateStore(atStart, regionCopy_[variable]);

    // Latches, innermost first.
    loop.itemLatch = BasicBlock::Create(context_, "item.next" + suffix, &function_);
    BasicBlock *latch = loop.itemLatch;
    for (int dim = 0; dim < 3; ++dim) {
      BasicBlock *outerLatch =
          dim < 2 ? BasicBlock::Create(context_, "item.next" + suffix, &function_) : nullptr;
      builder.SetInsertPoint(latch);
      Value *next =
          builder.CreateAdd(levels[dim].index, builder.getInt64(dim == 0 ? inputs_.simdWidth : 1));
      levels[dim].index->addIncoming(next, latch);
      Value *more = builder.CreateICmpULT(next, inputs_.localSize[dim]);
      BranchInst *branch =
          builder.CreateCondBr(more, levels[dim].header, outerLatch ? outerLatch : after);
      if (dim == 0 && inputs_.simdWidth == 1 && inputs_.interleave > 1)
        branch->setMetadata(LLVMContext::MD_loop, unrollAndJamRequest(inputs_.interleave));
      latch = outerLatch;
    }

    BasicBlock *clonedStart = cloneRegion(region, regionIndex, loop);
    builder.SetInsertPoint(loop.itemHeader);
    if (regionIndex == 0 || !hasBarriers() || workItemsStayTogether_) {
      builder.CreateBr(clonedStart);
    } else {
      // Only work-items waiting at this region's barrier run it; others (finished early)
      // keep their state and are skipped.
      Value *current = builder.CreateLoad(i32_, loop.slotAddress[next_], "item.region");
      BasicBlock *skip = BasicBlock::Create(context_, "item.skip" + suffix, &function_);
      builder.CreateCondBr(builder.CreateICmpEQ(current, builder.getInt32(regionIndex)),
                           clonedStart, skip);
      builder.SetInsertPoint(skip);
      recordPending(builder, current, regionIndex);
      builder.CreateBr(loop.itemLatch);
    }
    return loop;
  }

  /// Without yields: pending = region, unless the work-item has finished (every work-item
  /// reaches the same barrier). With them, pending holds the least dispatch key of the regions
  /// the work-items wait at (dispatchKey), until chooseNextRegion turns it into a region.
  void recordPending(IRBuilder<> &builder, Value *region, uint32_t ran) {
    Value *previous = builder.CreateLoad(i32_, pending_);
    if (hasYields()) {
      Value *key = dispatchKey(builder, region, ran);
      builder.CreateStore(builder.CreateBinaryIntrinsic(Intrinsic::umin, previous, key), pending_);
      return;
    }
    Value *finished = builder.CreateICmpEQ(region, builder.getInt32(kFinished));
    builder.CreateStore(builder.CreateSelect(finished, previous, region), pending_);
  }

  /// The order in which waiting work-items run after region `ran`, the least key first: the
  /// yield regions that follow `ran`, in a cycle, so that every sub-group waiting at a yield gets
  /// its turn; then a barrier's region, which may run only once every work-item that has not
  /// finished waits at a barrier; then kFinished. Yield region y gets (y - ran - 1) mod the
  /// region count, barrier region b the count plus b.
  Value *dispatchKey(IRBuilder<> &builder, Value *region, uint32_t ran) {
    uint32_t count = static_cast<uint32_t>(regions_.size());
    Value *ahead = addModuloRegions(builder, region, count - ran - 1);
    Value *barrierKey = builder.CreateAdd(region, builder.getInt32(count));
    Value *isYield = builder.CreateICmpUGE(region, builder.getInt32(firstYieldRegion_));
    Value *finished = builder.CreateICmpEQ(region, builder.getInt32(kFinished));
    return builder.CreateSelect(finished, builder.getInt32(kFinished),
                                builder.CreateSelect(isYield, ahead, barrierKey));
  }

  /// (value + amount) mod the region count, for a value and an amount below it.
  Value *addModuloRegions(IRBuilder<> &builder, Value *value, uint32_t amount) {
    Value *count = builder.getInt32(static_cast<uint32_t>(regions_.size()));
    Value *sum = builder.CreateAdd(value, builder.getInt32(amount));
    return builder.CreateSelect(builder.CreateICmpUGE(sum, count), builder.CreateSub(sum, count),
                                sum);
  }

  /// Where region `ran`'s loop ends when there are yields: the least key back into a region.
  BasicBlock *chooseNextRegion(uint32_t ran, BasicBlock *dispatch) {
    uint32_t count = static_cast<uint32_t>(regions_.size());
    BasicBlock *choose =
        BasicBlock::Create(context_, Twine("region.done.") + Twine(ran), &function_);
    IRBuilder<> builder(choose);
    Value *key = builder.CreateLoad(i32_, pending_, "least.key");
    Value *yieldRegion = addModuloRegions(builder, key, ran + 1);
    Value *barrierRegion = builder.CreateSub(key, builder.getInt32(count));
    Value *isBarrier = builder.CreateICmpUGE(key, builder.getInt32(count));
    Value *finished = builder.CreateICmpEQ(key, builder.getInt32(kFinished));
    Value *next = builder.CreateSelect(finished, builder.getInt32(kFinished),
                                       builder.CreateSelect(isBarrier, barrierRegion, yieldRegion));
    builder.CreateStore(next, pending_);
    if (!hasTurns()) {
      builder.CreateBr(dispatch);
      return choose;
    }
    // Every SIMD group has run up to a turn (or beyond): the others' work-groups go next.
    Value *atTurn =
        builder.CreateAnd(builder.CreateICmpUGE(next, builder.getInt32(firstTurnRegion_)),
                          builder.CreateICmpNE(next, builder.getInt32(kFinished)));
    builder.CreateCondBr(atTurn, turnReturn_, dispatch);
    return choose;
  }

  struct PrivateSlot {
    AllocaInst *alloca;
    uint64_t offset;
    uint64_t stride;
  };

  /// SIMD groups per row of dimension 0, computed once in the prologue.
  Value *groupsAlongX() {
    if (groupsAlongX_ == nullptr) {
      IRBuilder<> prologue(inputs_.prologue->getTerminator());
      uint64_t width = inputs_.simdWidth;
      groupsAlongX_ = prologue.CreateUDiv(
          prologue.CreateAdd(inputs_.localSize[0], prologue.getInt64(width - 1)),
          prologue.getInt64(width), "simd.groups.x");
    }
    return groupsAlongX_;
  }

  const PrivateSlot &slotOf(const Value *alloca) const {
    auto found =
        llvm::find_if(slots_, [&](const PrivateSlot &slot) { return slot.alloca == alloca; });
    assert(found != slots_.end() && "another work-item's copy of a variable the prologue holds");
    return *found;
  }

  Value *slotAddress(IRBuilder<> &builder, const PrivateSlot &slot, Value *linearId) {
    if (!slotBase_.count(slot.alloca)) {
      IRBuilder<> prologue(inputs_.prologue->getTerminator());
      Value *items = prologue.CreateMul(
          groupsAlongX(), prologue.CreateMul(inputs_.localSize[1], inputs_.localSize[2]));
      Value *offset = prologue.CreateMul(items, prologue.getInt64(slot.offset));
      slotBase_[slot.alloca] = prologue.CreateGEP(prologue.getInt8Ty(), slotStorage(items), offset,
                                                  slot.alloca->getName() + ".slots");
    }
    Value *offset = builder.CreateMul(linearId, builder.getInt64(slot.stride));
    return builder.CreateGEP(builder.getInt8Ty(), slotBase_[slot.alloca], offset,
                             slot.alloca->getName() + ".item");
  }

  /// Where the slots live: a variable of the function when the work-group's slots are few and
  /// no turn ends a call before the group has finished, else WorkGroupParams::privateMemory.
  /// Where the region loops are unrolled, LLVM then keeps the slots of a value that crosses a
  /// barrier in registers, instead of storing every SIMD group's copy before the barrier and
  /// loading it after (a local-memory scan's values cross sixteen barriers).
  Value *slotStorage(Value *simdGroups) {
    if (slotStorage_ != nullptr)
      return slotStorage_;
    slotStorage_ = inputs_.privateMemory;
    auto *count = dyn_cast<ConstantInt>(simdGroups);
    if (hasTurns() || count == nullptr || count->getZExtValue() * slotBytes_ > kSlotsInVariable)
      return slotStorage_;
    IRBuilder<> entry(inputs_.prologue, inputs_.prologue->begin());
    AllocaInst *storage =
        entry.CreateAlloca(ArrayType::get(entry.getInt8Ty(), count->getZExtValue() * slotBytes_),
                           nullptr, "slots.in.frame");
    storage->setAlignment(Align(kLocalMemoryAlignment));
    return slotStorage_ = storage;
  }

  /// An exit of a cloned region: the work-item reached `target`'s barrier (or finished).
  BasicBlock *exitStub(uint32_t regionIndex, BasicBlock *target, RegionLoop &loop) {
    uint32_t nextRegion = regionAfter_.lookup(target);
    BasicBlock *stub =
        BasicBlock::Create(context_, Twine("item.reached.") + Twine(nextRegion), &function_);
    IRBuilder<> builder(stub);
    if (hasBarriers() && workItemsStayTogether_) {
      builder.CreateStore(builder.getInt32(nextRegion), pending_);
    } else if (hasBarriers()) {
      builder.CreateStore(builder.getInt32(nextRegion), loop.slotAddress[next_]);
      recordPending(builder, builder.getInt32(nextRegion), regionIndex);
    }
    builder.CreateBr(loop.itemLatch);
    return stub;
  }

  /// Copies `region` into the work-item loop; returns the copy of its start block.
  BasicBlock *cloneRegion(Region &region, uint32_t regionIndex, RegionLoop &loop) {
    ValueToValueMapTy map;
    for (BasicBlock *exit : region.exits)
      map[exit] = exitStub(regionIndex, exit, loop);
    SmallPtrSet<BasicBlock *, 32> clones;
    for (BasicBlock *block : region.blocks) {
      BasicBlock *clone = CloneBasicBlock(block, map, Twine(".") + Twine(regionIndex), &function_);
      map[block] = clone;
      clones.insert(clone);
    }
    for (BasicBlock *clone : clones)
      for (Instruction &instruction : *clone)
        RemapInstruction(&instruction, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
    for (BasicBlock *clone : clones) {
      for (PHINode &phi : clone->phis())
        for (unsigned index = phi.getNumIncomingValues(); index-- > 0;)
          if (!clones.count(phi.getIncomingBlock(index)))
            phi.removeIncomingValue(index, /*DeletePHIIfEmpty=*/false);
      keepWorkGroupValuesOfRegion(*clone);
      replaceWorkItemUses(*clone, loop);
    }
    return cast<BasicBlock>(map[region.start]);
  }

  /// In a cloned block: a SIMD group reads the work-group values from its copy of them, and
  /// stores to both, so that the regions after this one see what it stored.
  void keepWorkGroupValuesOfRegion(BasicBlock &clone) {
    SmallVector<StoreInst *, 4> stores;
    for (Instruction &instruction : clone) {
      if (auto *load = dyn_cast<LoadInst>(&instruction)) {
        if (AllocaInst *copy = regionCopy_.lookup(load->getPointerOperand()))
          load->setOperand(LoadInst::getPointerOperandIndex(), copy);
      } else if (auto *store = dyn_cast<StoreInst>(&instruction)) {
        if (regionCopy_.contains(store->getPointerOperand()))
          stores.push_back(store);
      }
    }
    for (StoreInst *store : stores) {
      Value *variable = store->getPointerOperand();
      auto *copy = store->clone();
      copy->insertAfter(store->getIterator());
      store->setOperand(StoreInst::getPointerOperandIndex(), regionCopy_.lookup(variable));
    }
  }

  /// In a cloned block: local ids become the loop's indices, allocas this work-item's slots.
  void replaceWorkItemUses(BasicBlock &clone, RegionLoop &loop) {
    SmallVector<Instruction *, 8> dead;
    for (Instruction &instruction : clone) {
      if (auto *call = dyn_cast<CallInst>(&instruction);
          call && inputs_.workItemSlot && call->getCalledFunction() == inputs_.workItemSlot) {
        IRBuilder<> builder(call);
        call->replaceAllUsesWith(
            slotAddress(builder, slotOf(call->getArgOperand(0)), call->getArgOperand(1)));
        dead.push_back(call);
        continue;
      }
      if (auto *call = dyn_cast<CallInst>(&instruction);
          call && inputs_.localId && call->getCalledFunction() == inputs_.localId) {
        IRBuilder<> builder(call);
        Value *dim = builder.CreateZExtOrTrunc(call->getArgOperand(0), i32_);
        Value *id = builder.CreateSelect(
            builder.CreateICmpEQ(dim, builder.getInt32(0)), loop.id[0],
            builder.CreateSelect(builder.CreateICmpEQ(dim, builder.getInt32(1)), loop.id[1],
                                 loop.id[2]));
        call->replaceAllUsesWith(builder.CreateZExtOrTrunc(id, call->getType()));
        dead.push_back(call);
        continue;
      }
      if (auto *intrinsic = dyn_cast<IntrinsicInst>(&instruction);
          intrinsic && intrinsic->isLifetimeStartOrEnd() && hasBarriers()) {
        dead.push_back(intrinsic); // the slots outlive any one region
        continue;
      }
      for (Use &operand : instruction.operands())
        if (auto *alloca = dyn_cast<AllocaInst>(operand.get()))
          if (Value *address = loop.slotAddress.lookup(alloca))
            operand.set(address);
    }
    for (Instruction *instruction : dead)
      instruction->eraseFromParent();
  }

  void eraseOriginalBody() {
    for (BasicBlock *block : originalBody_)
      block->dropAllReferences();
    for (BasicBlock *block : originalBody_)
      block->eraseFromParent();
    // The allocas now only name slots; their stack copies are dead.
    for (const PrivateSlot &slot : slots_)
      if (slot.alloca->use_empty())
        slot.alloca->eraseFromParent();
  }

  Function &function_;
  const WorkItemLoopInputs &inputs_;
  LLVMContext &context_;
  Type *i32_;
  Type *i64_;

  std::vector<BasicBlock *> originalBody_;
  std::vector<Region> regions_;
  /// Barrier blocks (and the exit block) to the index of the region that follows them.
  DenseMap<const BasicBlock *, uint32_t> regionAfter_;
  BasicBlock *exit_ = nullptr;
  /// Regions from this index on start after a yield (spin_loop_yields.hpp), the others after a
  /// barrier or at the start.
  uint32_t firstYieldRegion_ = 0;
  /// Regions from this index on start after a turn (grid_stride_turns.hpp).
  uint32_t firstTurnRegion_ = 0;
  BasicBlock *turnReturn_ = nullptr;
  std::vector<PrivateSlot> slots_;
  DenseMap<AllocaInst *, Value *> slotBase_;
  /// Bytes of slots per SIMD group, and where they live (slotStorage()).
  uint64_t slotBytes_ = 0;
  Value *slotStorage_ = nullptr;
  std::optional<WorkGroupUniformValues> uniform_;
  /// Every branch that chooses a region's exit tests a work-group value.
  bool workItemsStayTogether_ = false;
  /// The variables that hold a work-group value: one for the work-group, not one per work-item.
  SetVector<AllocaInst *> uniformVariables_;
  /// Each one's copy that a SIMD group reads in a region.
  DenseMap<const Value *, AllocaInst *> regionCopy_;
  Value *groupsAlongX_ = nullptr;
  AllocaInst *next_ = nullptr;
  AllocaInst *pending_ = nullptr;
};

} // namespace

uint64_t formWorkItemLoops(Function &function, const WorkItemLoopInputs &inputs) {
  return WorkItemLoopBuilder(function, inputs).run();
}

} // namespace kiln::cpu
