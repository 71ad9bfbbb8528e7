//===- control_linearization.cpp - Divergent control flow as masks --------===//
#include "devices/cpu/codegen/vectorizer/control_linearization.hpp"

#include "devices/cpu/codegen/codegen_error.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <functional>

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

/// A block, or a whole loop seen from the region around it.
struct Node {
  BasicBlock *block = nullptr;
  Loop *loop = nullptr;
  BasicBlock *first() const { return loop ? loop->getHeader() : block; }
  bool operator==(const Node &other) const = default;
};

/// The blocks of a loop body (or of the function outside loops) in the order they will run.
struct Region {
  Loop *loop = nullptr; // null: the function
  std::vector<Node> order;
  SmallPtrSet<const BasicBlock *, 16> fullBlocks; // first blocks of full nodes
  bool uniformLoop = false;                       // kept as a loop (see the header)
  BasicBlock *uniformExiting = nullptr;           // its exiting block
};

/// One incoming edge of a block, as the linearized code sees it: the lanes that take it and
/// the values the target's phis receive along it.
struct EdgeRecord {
  Value *mask;
  SmallVector<std::pair<PHINode *, Value *>, 4> phiValues;
};

struct TerminatorPlan {
  Value *condition = nullptr; // null: unconditional to `onTrue`
  BasicBlock *onTrue = nullptr;
  BasicBlock *onFalse = nullptr;
};

class ControlLinearizer {
public:
  ControlLinearizer(Function &function, ShapeSeeds seeds, Value *activeLanes)
      : function_(function), seeds_(seeds), activeLanes_(activeLanes),
        context_(function.getContext()), dominators_(function), postDominators_(function),
        loops_(dominators_) {}

  Expected<LinearizedControl> run() {
    if (Error error = findDivergentBranches())
      return error;
    Expected<Region> top = planRegion(nullptr);
    if (!top)
      return top.takeError();
    if (Error error = checkConvergentCalls(*top, true))
      return error;
    linearizeRegion(*top, activeLanes_);
    applyTerminatorPlans();
    return std::move(result_);
  }

private:
  //===--- Divergence -----------------------------------------------------===//

  /// Finds the branches whose condition differs between lanes. Phis where the paths of a
  /// divergent branch join are varying whatever their inputs: iterate to a fixed point.
  Error findDivergentBranches() {
    DenseSet<const Value *> forced;
    for (;;) {
      ShapeAnalysis shapes(function_, seeds_, forced);
      divergent_.clear();
      bool grew = false;
      for (BasicBlock &block : function_) {
        Instruction *terminator = block.getTerminator();
        if (isa<SwitchInst>(terminator) || isa<IndirectBrInst>(terminator) ||
            isa<CallBrInst>(terminator) || isa<InvokeInst>(terminator))
          return codegenError("a multi-way branch");
        auto *branch = dyn_cast<BranchInst>(terminator);
        if (branch == nullptr || !branch->isConditional() ||
            shapes.shape(branch->getCondition()).isUniform())
          continue;
        divergent_.insert(&block);
        for (BasicBlock *join : divergenceRegion(&block))
          for (PHINode &phi : join->phis())
            if (!isLoopHeader(join))
              grew |= forced.insert(&phi).second;
      }
      if (!grew)
        return Error::success();
    }
  }

  bool isLoopHeader(const BasicBlock *block) const {
    Loop *loop = loops_.getLoopFor(block);
    return loop && loop->getHeader() == block;
  }

  /// The blocks a divergent branch's paths may reach before they meet again at its immediate
  /// post-dominator (that one included).
  SmallVector<BasicBlock *, 16> divergenceRegion(BasicBlock *branchBlock) {
    DomTreeNode *node = postDominators_.getNode(branchBlock);
    BasicBlock *meet = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
    SmallVector<BasicBlock *, 16> region;
    SmallPtrSet<BasicBlock *, 16> seen;
    SmallVector<BasicBlock *, 16> worklist(successors(branchBlock).begin(),
                                           successors(branchBlock).end());
    while (!worklist.empty()) {
      BasicBlock *block = worklist.pop_back_val();
      if (!seen.insert(block).second)
        continue;
      region.push_back(block);
      if (block == meet)
        continue;
      for (BasicBlock *successor : successors(block))
        worklist.push_back(successor);
    }
    return region;
  }

  //===--- Planning -------------------------------------------------------===//

  bool inScope(const Loop *scope, const BasicBlock *block) const {
    return scope == nullptr || scope->contains(block);
  }

  Node nodeOf(const Loop *scope, BasicBlock *block) const {
    Loop *inner = loops_.getLoopFor(block);
    if (inner == scope)
      return {block, nullptr};
    while (inner->getParentLoop() != scope)
      inner = inner->getParentLoop();
    return {nullptr, inner};
  }

  /// Targets of a node's edges: inside the region (as nodes), or leaving it.
  struct Edges {
    SmallVector<Node, 4> inside;
    bool leaves = false; // exits the region or returns
  };

  Edges edgesOf(const Region &region, const Node &node) const {
    Edges edges;
    SmallVector<BasicBlock *, 4> targets;
    if (node.loop) {
      node.loop->getUniqueExitBlocks(targets);
    } else {
      targets.append(succ_begin(node.block), succ_end(node.block));
      if (targets.empty())
        edges.leaves = true;
    }
    for (BasicBlock *target : targets) {
      bool backEdge = region.loop && target == region.loop->getHeader();
      if (!inScope(region.loop, target) || backEdge) {
        // The exit of a uniform loop is a real branch: it does not make lanes leave early.
        if (!(region.uniformLoop && node.block == region.uniformExiting && !backEdge))
          edges.leaves = true;
        continue;
      }
      edges.inside.push_back(nodeOf(region.loop, target));
    }
    return edges;
  }

  /// Orders `region`'s nodes topologically; fails on irreducible control flow.
  Error orderNodes(Region &region) {
    Node entry = region.loop ? Node{region.loop->getHeader(), nullptr}
                             : Node{&function_.getEntryBlock(), nullptr};
    enum class Mark { Active, Done };
    DenseMap<BasicBlock *, Mark> marks;
    std::vector<Node> postOrder;
    std::function<Error(const Node &)> visit = [&](const Node &node) -> Error {
      marks[node.first()] = Mark::Active;
      for (const Node &next : edgesOf(region, node).inside) {
        auto found = marks.find(next.first());
        if (found != marks.end()) {
          if (found->second == Mark::Active)
            return codegenError("irreducible control flow");
          continue;
        }
        if (Error error = visit(next))
          return error;
      }
      marks[node.first()] = Mark::Done;
      postOrder.push_back(node);
      return Error::success();
    };
    if (Error error = visit(entry))
      return error;
    region.order.assign(postOrder.rbegin(), postOrder.rend());
    if (!region.loop) {
      // The return block runs last: nothing follows it.
      BasicBlock *exit = returnBlock();
      auto found = find(region.order, Node{exit, nullptr});
      if (found != region.order.end()) {
        region.order.erase(found);
        region.order.push_back({exit, nullptr});
      }
    }
    return Error::success();
  }

  BasicBlock *returnBlock() const {
    for (BasicBlock &block : function_)
      if (isa<ReturnInst>(block.getTerminator()))
        return &block;
    return nullptr;
  }

  /// A node is full when no path from the region's entry leaves the region without it.
  void findFullNodes(Region &region) {
    region.fullBlocks.clear();
    for (const Node &candidate : region.order) {
      bool escapes = false;
      SmallPtrSet<BasicBlock *, 32> seen;
      SmallVector<Node, 32> worklist{region.order.front()};
      if (candidate == region.order.front()) {
        region.fullBlocks.insert(candidate.first());
        continue;
      }
      while (!worklist.empty() && !escapes) {
        Node node = worklist.pop_back_val();
        if (node == candidate || !seen.insert(node.first()).second)
          continue;
        Edges edges = edgesOf(region, node);
        escapes = edges.leaves;
        worklist.append(edges.inside.begin(), edges.inside.end());
      }
      if (!escapes)
        region.fullBlocks.insert(candidate.first());
    }
  }

  Expected<Region> planRegion(Loop *loop) {
    Region region;
    region.loop = loop;
    if (loop) {
      if (!loop->getLoopPreheader() || !loop->getLoopLatch() || !loop->hasDedicatedExits())
        return codegenError("a loop not in simplified form");
      BasicBlock *exiting = loop->getExitingBlock();
      BasicBlock *exit = loop->getUniqueExitBlock();
      if (exiting && exit && loops_.getLoopFor(exiting) == loop && !divergent_.count(exiting)) {
        region.uniformLoop = true;
        region.uniformExiting = exiting;
      }
    }
    if (Error error = orderNodes(region))
      return error;
    findFullNodes(region);
    if (region.uniformLoop && !region.fullBlocks.count(region.uniformExiting)) {
      // Some lanes may never reach the exit test: they leave at different times.
      region.uniformLoop = false;
      region.uniformExiting = nullptr;
      findFullNodes(region);
    }
    for (const Node &node : region.order) {
      if (!node.loop)
        continue;
      Expected<Region> inner = planRegion(node.loop);
      if (!inner)
        return inner.takeError();
      regions_[node.loop] = std::move(*inner);
    }
    return region;
  }

  /// Convergent calls (barriers) must stay where every lane of every SIMD group runs them.
  Error checkConvergentCalls(const Region &region, bool regionFull) {
    for (const Node &node : region.order) {
      bool full = regionFull && region.fullBlocks.count(node.first());
      if (node.loop) {
        const Region &inner = regions_[node.loop];
        if (Error error = checkConvergentCalls(inner, full && inner.uniformLoop))
          return error;
        continue;
      }
      if (full)
        continue;
      for (Instruction &instruction : *node.block)
        if (auto *call = dyn_cast<CallBase>(&instruction); call && seeds_.isBarrier(*call))
          return codegenError("a barrier or other convergent call in divergent control flow");
    }
    return Error::success();
  }

  //===--- Linearization --------------------------------------------------===//

  Value *anyLane(IRBuilder<> &builder, Value *mask) {
    return builder.CreateCall(seeds_.anyLane, {mask}, "any.lane");
  }

  /// `a | b` that never lets a poisoned lane of `b` through where `a` holds.
  static Value *orMask(IRBuilder<> &builder, Value *a, Value *b) {
    return builder.CreateSelect(a, builder.getTrue(), b, "mask.or");
  }
  static Value *andMask(IRBuilder<> &builder, Value *mask, Value *condition) {
    return builder.CreateSelect(mask, condition, builder.getFalse(), "mask.and");
  }

  /// Linearizes `region`'s nodes under `entryMask` into one chain that starts at the region's
  /// entry block; returns the chain's last block (its terminator is left to the caller).
  BasicBlock *linearizeRegion(const Region &region, Value *entryMask) {
    BasicBlock *previousLast = nullptr;
    for (const Node &node : region.order) {
      bool isEntry = node == region.order.front();
      auto [nodeFirst, nodeLast] = node.loop
                                       ? linearizeLoop(node.loop)
                                       : linearizeBlock(node.block, isEntry ? entryMask : nullptr);
      if (!node.loop && region.fullBlocks.count(node.block))
        result_.fullBlocks.insert(node.block);
      if (previousLast)
        chain(previousLast, nodeFirst);
      previousLast = nodeLast;
    }
    return previousLast;
  }

  /// Sets `from`'s terminator to fall through to `to`, unless a plan already keeps a uniform
  /// branch there (then `to` fills its open side).
  void chain(BasicBlock *from, BasicBlock *to) {
    TerminatorPlan &plan = plans_[from];
    if (plan.condition) {
      (plan.onTrue ? plan.onFalse : plan.onTrue) = to;
      return;
    }
    plan.onTrue = to;
  }

  /// The mask of a block reached through its recorded incoming edges; its phis become blends.
  Value *joinIncoming(BasicBlock *block) {
    SmallVector<EdgeRecord, 4> records = std::move(incoming_[block]);
    incoming_.erase(block);
    IRBuilder<> builder(block, block->getFirstInsertionPt());
    Value *mask = nullptr;
    for (const EdgeRecord &record : records)
      mask = mask ? orMask(builder, mask, record.mask) : record.mask;
    if (mask == nullptr)
      mask = builder.getFalse(); // unreachable from the region's entry
    for (PHINode &phi : make_early_inc_range(block->phis())) {
      Value *value = nullptr;
      for (const EdgeRecord &record : records) {
        Value *incoming = valueFor(record, &phi);
        value = value ? builder.CreateSelect(record.mask, incoming, value, phi.getName() + ".blend")
                      : incoming;
      }
      if (value == nullptr)
        value = PoisonValue::get(phi.getType());
      phi.replaceAllUsesWith(value);
      phi.eraseFromParent();
    }
    return mask;
  }

  static Value *valueFor(const EdgeRecord &record, PHINode *phi) {
    for (const auto &[target, value] : record.phiValues)
      if (target == phi)
        return value;
    return PoisonValue::get(phi->getType());
  }

  void record(BasicBlock *from, BasicBlock *to, Value *mask) {
    EdgeRecord edge{mask, {}};
    // (A loop header's own phis, the vectorizer's among them, are not replaced: skip them.)
    for (PHINode &phi : to->phis())
      if (int index = phi.getBasicBlockIndex(from); index >= 0)
        edge.phiValues.push_back({&phi, phi.getIncomingValue(index)});
    incoming_[to].push_back(std::move(edge));
  }

  std::pair<BasicBlock *, BasicBlock *> linearizeBlock(BasicBlock *block, Value *entryMask) {
    Value *mask = entryMask ? entryMask : joinIncoming(block);
    result_.blockMask[block] = mask;
    Instruction *terminator = block->getTerminator();
    IRBuilder<> builder(terminator);
    if (auto *branch = dyn_cast<BranchInst>(terminator)) {
      if (branch->isUnconditional() || branch->getSuccessor(0) == branch->getSuccessor(1)) {
        record(block, branch->getSuccessor(0), mask);
      } else if (keepsItsBranch(block)) {
        // The exit test of a uniform loop stays a real branch: every lane here takes the side
        // that runs next, with the block's own mask. (Masking that side with the condition would
        // leave a loop-carried mask that the optimizer cannot prove full once it rotates the
        // loop, and every access in the loop would then test it.)
        record(block, branch->getSuccessor(0), mask);
        record(block, branch->getSuccessor(1), mask);
      } else {
        Value *condition = branch->getCondition();
        record(block, branch->getSuccessor(0), andMask(builder, mask, condition));
        record(block, branch->getSuccessor(1),
               andMask(builder, mask, builder.CreateNot(condition)));
      }
    }
    return {block, block};
  }

  /// Whether `block`'s conditional branch is kept as a branch (the exit test of a uniform loop).
  bool keepsItsBranch(BasicBlock *block) const {
    auto plan = plans_.find(block);
    return plan != plans_.end() && plan->second.condition != nullptr;
  }

  /// Rewrites the incoming block `from` of `header`'s phis to `to`.
  static void retargetPhis(BasicBlock *header, BasicBlock *from, BasicBlock *to) {
    for (PHINode &phi : header->phis())
      for (unsigned index = 0; index < phi.getNumIncomingValues(); ++index)
        if (phi.getIncomingBlock(index) == from)
          phi.setIncomingBlock(index, to);
  }

  std::pair<BasicBlock *, BasicBlock *> linearizeLoop(Loop *loop) {
    const Region &region = regions_[loop];
    BasicBlock *header = loop->getHeader();
    BasicBlock *preheader = loop->getLoopPreheader();
    BasicBlock *latch = loop->getLoopLatch();
    SmallVector<BasicBlock *, 4> exits;
    loop->getUniqueExitBlocks(exits);

    // Lanes entering: the preheader's edge (the only one into the header from outside).
    SmallVector<EdgeRecord, 4> entering = std::move(incoming_[header]);
    incoming_.erase(header);
    Value *entryMask = entering.front().mask;

    auto *guard = BasicBlock::Create(context_, header->getName() + ".guard", &function_);
    auto *done = BasicBlock::Create(context_, header->getName() + ".done", &function_);
    IRBuilder<> builder(guard);
    plans_[guard] = {anyLane(builder, entryMask), header, done};
    result_.blockMask[guard] = entryMask;
    result_.blockMask[done] = entryMask;
    retargetPhis(header, preheader, guard);

    if (region.uniformLoop)
      return linearizeUniformLoop(loop, region, guard, done, entryMask, exits.front());

    // Live lanes, and per exit the lanes that took it and the values they carried out.
    builder.SetInsertPoint(header, header->getFirstNonPHIIt());
    IRBuilder<> phis(header, header->begin());
    PHINode *live = phis.CreatePHI(builder.getInt1Ty(), 2, "live");
    live->addIncoming(entryMask, guard);
    struct ExitState {
      BasicBlock *exit;
      PHINode *mask;
      SmallVector<std::pair<PHINode *, PHINode *>, 4> values; // exit's phi, accumulator
    };
    SmallVector<ExitState, 4> states;
    for (BasicBlock *exit : exits) {
      ExitState state{exit, phis.CreatePHI(builder.getInt1Ty(), 2, "exited"), {}};
      state.mask->addIncoming(builder.getFalse(), guard);
      for (PHINode &phi : exit->phis()) {
        PHINode *accumulator = phis.CreatePHI(phi.getType(), 2, phi.getName() + ".out");
        accumulator->addIncoming(Constant::getNullValue(phi.getType()), guard);
        state.values.push_back({&phi, accumulator});
      }
      states.push_back(std::move(state));
    }

    BasicBlock *last = linearizeRegion(region, live);
    builder.SetInsertPoint(last->getTerminator());
    Value *liveNext = nullptr;
    for (const EdgeRecord &record : incoming_[header])
      liveNext = liveNext ? orMask(builder, liveNext, record.mask) : record.mask;
    incoming_.erase(header);
    if (liveNext == nullptr)
      liveNext = builder.getFalse();
    live->addIncoming(liveNext, last);
    retargetPhis(header, latch, last);
    // The header's own phis got their latch values from `latch`: they come from `last` now.

    for (ExitState &state : states) {
      SmallVector<EdgeRecord, 4> leaving = std::move(incoming_[state.exit]);
      incoming_.erase(state.exit);
      Value *exited = state.mask;
      for (const EdgeRecord &record : leaving)
        exited = orMask(builder, exited, record.mask);
      state.mask->addIncoming(exited, last);
      SmallVector<Value *, 4> carried;
      for (auto &[phi, accumulator] : state.values) {
        Value *value = accumulator;
        for (const EdgeRecord &record : leaving)
          value = builder.CreateSelect(record.mask, valueFor(record, phi), value);
        accumulator->addIncoming(value, last);
        carried.push_back(value);
      }
      // After the loop: the exit's lanes and values, or none when the guard skipped it.
      IRBuilder<> after(done);
      EdgeRecord out{nullptr, {}};
      PHINode *finalMask = after.CreatePHI(builder.getInt1Ty(), 2, "exited.final");
      finalMask->addIncoming(builder.getFalse(), guard);
      finalMask->addIncoming(exited, last);
      out.mask = finalMask;
      for (unsigned index = 0; index < state.values.size(); ++index) {
        PHINode *phi = state.values[index].first;
        PHINode *final = after.CreatePHI(phi->getType(), 2, phi->getName() + ".final");
        final->addIncoming(Constant::getNullValue(phi->getType()), guard);
        final->addIncoming(carried[index], last);
        out.phiValues.push_back({phi, final});
      }
      incoming_[state.exit].push_back(std::move(out));
    }
    plans_[last] = {anyLane(builder, liveNext), header, done};
    return {guard, done};
  }

  std::pair<BasicBlock *, BasicBlock *> linearizeUniformLoop(Loop *loop, const Region &region,
                                                             BasicBlock *guard, BasicBlock *done,
                                                             Value *entryMask, BasicBlock *exit) {
    BasicBlock *header = loop->getHeader();
    BasicBlock *latch = loop->getLoopLatch();
    BasicBlock *exiting = region.uniformExiting;
    auto *branch = cast<BranchInst>(exiting->getTerminator());
    bool exitOnTrue = branch->getSuccessor(0) == exit;
    // The exiting block keeps its branch; its other side is filled in when the chain is made.
    plans_[exiting] = {branch->getCondition(), exitOnTrue ? done : nullptr,
                       exitOnTrue ? nullptr : done};

    BasicBlock *last = linearizeRegion(region, entryMask);
    incoming_.erase(header); // the back edge: every lane that entered goes round
    retargetPhis(header, latch, last);
    chain(last, header);

    // The exit's phis take their values from the exiting block, or nothing past the guard.
    incoming_.erase(exit);
    EdgeRecord out{entryMask, {}};
    IRBuilder<> after(done);
    for (PHINode &phi : exit->phis()) {
      PHINode *final = after.CreatePHI(phi.getType(), 2, phi.getName() + ".final");
      final->addIncoming(Constant::getNullValue(phi.getType()), guard);
      final->addIncoming(phi.getIncomingValueForBlock(exiting), exiting);
      out.phiValues.push_back({&phi, final});
    }
    incoming_[exit].push_back(std::move(out));
    return {guard, done};
  }

  void applyTerminatorPlans() {
    for (auto &[block, plan] : plans_) {
      if (Instruction *old = block->getTerminator())
        old->eraseFromParent();
      IRBuilder<> builder(block);
      if (plan.condition)
        builder.CreateCondBr(plan.condition, plan.onTrue, plan.onFalse);
      else
        builder.CreateBr(plan.onTrue);
    }
  }

  Function &function_;
  ShapeSeeds seeds_;
  Value *activeLanes_;
  LLVMContext &context_;
  DominatorTree dominators_;
  PostDominatorTree postDominators_;
  LoopInfo loops_;
  SmallPtrSet<const BasicBlock *, 16> divergent_;
  DenseMap<const Loop *, Region> regions_;
  DenseMap<BasicBlock *, SmallVector<EdgeRecord, 4>> incoming_;
  DenseMap<BasicBlock *, TerminatorPlan> plans_;
  LinearizedControl result_;
};

} // namespace

Expected<LinearizedControl> linearizeControlFlow(Function &function, ShapeSeeds seeds,
                                                 Value *activeLanes) {
  return ControlLinearizer(function, seeds, activeLanes).run();
}

} // namespace kiln::cpu::vectorizer
