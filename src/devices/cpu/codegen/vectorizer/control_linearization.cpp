//===- control_linearization.cpp - Divergent control flow as masks --------===//
#include "devices/cpu/codegen/vectorizer/control_linearization.hpp"

#include "compiler/llvm/codegen_error.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <array>
#include <deque>
#include <functional>

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

struct Hammock;

/// A block, a whole loop, or a whole uniform branch with the code it controls (a hammock,
/// named by its head), seen from the region around it.
struct Node {
  BasicBlock *block = nullptr; // the block, or the hammock's head
  Loop *loop = nullptr;
  const Hammock *hammock = nullptr;
  BasicBlock *first() const { return loop ? loop->getHeader() : block; }
  bool operator==(const Node &other) const = default;
};

using BlockSet = SmallPtrSet<const BasicBlock *, 16>;

/// The blocks of a loop body, of one side of a hammock, or of the function outside loops, in
/// the order they will run.
struct Region {
  Loop *loop = nullptr;           // the innermost loop around the region (null: none)
  BasicBlock *entry = nullptr;    // where the region starts
  const BlockSet *side = nullptr; // for a side of a hammock: its blocks
  BasicBlock *sideJoin = nullptr; // and the hammock's join, where the side ends
  std::vector<Node> order;
  BlockSet fullBlocks;                  // first blocks of full nodes
  bool uniformLoop = false;             // kept as a loop (see the header)
  BasicBlock *uniformExiting = nullptr; // its exiting block
};

/// A conditional branch on a value the same in every lane, with the code between it and its
/// immediate post-dominator (the join), which nothing else enters or leaves. Its lanes all take
/// one side, so it stays a branch: only that side runs, as one region of its own (a branch on
/// an image's channel order does not run the conversions of the other orders).
struct Hammock {
  BasicBlock *head = nullptr;
  BasicBlock *join = nullptr;
  struct Side {
    BasicBlock *entry = nullptr; // null: that successor of the head is the join
    BlockSet blocks;
    Region region;
  };
  std::array<Side, 2> sides; // for the branch's successors 0 and 1
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
    // The plan decides which joins blend their incoming values by masks; the phis of those are
    // varying, which may make more branches divergent: plan again until nothing changes.
    for (;;) {
      if (Error error = findDivergentBranches())
        return error;
      Expected<Region> top = planRegion(nullptr, &function_.getEntryBlock());
      if (!top)
        return top.takeError();
      if (forceBlendedPhis()) {
        hammocks_.clear();
        hammockAt_.clear();
        regions_.clear();
        continue;
      }
      if (Error error = checkConvergentCalls(*top, true))
        return error;
      linearizeRegion(*top, activeLanes_);
      applyTerminatorPlans();
      return std::move(result_);
    }
  }

private:
  //===--- Divergence -----------------------------------------------------===//

  /// Finds the branches whose condition differs between lanes. Phis where the paths of a
  /// divergent branch join are varying whatever their inputs: iterate to a fixed point.
  Error findDivergentBranches() {
    DenseSet<const Value *> &forced = forcedVarying_;
    for (;;) {
      ShapeAnalysis shapes(function_, seeds_, forced);
      divergent_.clear();
      bool grew = false;
      for (BasicBlock &block : function_) {
        Instruction *terminator = block.getTerminator();
        if (isa<SwitchInst>(terminator) || isa<IndirectBrInst>(terminator) ||
            isa<CallBrInst>(terminator) || isa<InvokeInst>(terminator))
          return compiler::codegenError("a multi-way branch");
        auto *branch = dyn_cast<BranchInst>(terminator);
        if (branch == nullptr || !branch->isConditional() ||
            shapes.shape(branch->getCondition()).isUniform())
          continue;
        divergent_.insert(&block);
        for (BasicBlock *join : divergentJoins(&block))
          for (PHINode &phi : join->phis())
            if (!isLoopHeader(join))
              grew |= forced.insert(&phi).second;
      }
      if (!grew)
        return Error::success();
    }
  }

  /// Forces varying the phis of the joins the plan blends: those where more than one record of
  /// incoming lanes arrives (each hammock that ends there, each loop that exits there, each
  /// other edge), whose values become selects on the lanes' masks. Returns whether any was new.
  bool forceBlendedPhis() {
    bool grew = false;
    for (BasicBlock &join : function_) {
      if (join.phis().empty() || isLoopHeader(&join))
        continue;
      SmallPtrSet<const void *, 4> sources;
      for (BasicBlock *predecessor : predecessors(&join))
        sources.insert(recordSource(predecessor, &join));
      if (sources.size() < 2)
        continue;
      for (PHINode &phi : join.phis())
        grew |= forcedVarying_.insert(&phi).second;
    }
    return grew;
  }

  /// What the edge from `predecessor` to `join` arrives as: merged with the other edges of the
  /// outermost hammock ending at `join` that holds it, or of the outermost loop that it leaves;
  /// else the edge itself.
  const void *recordSource(BasicBlock *predecessor, BasicBlock *join) const {
    const Hammock *outermost = nullptr;
    size_t outermostSize = 0;
    for (const Hammock &hammock : hammocks_) {
      if (hammock.join != join)
        continue;
      bool holds = hammock.head == predecessor;
      size_t size = 0;
      for (const Hammock::Side &side : hammock.sides) {
        holds |= side.blocks.contains(predecessor);
        size += side.blocks.size();
      }
      if (holds && (outermost == nullptr || size > outermostSize)) {
        outermost = &hammock;
        outermostSize = size;
      }
    }
    if (outermost)
      return outermost;
    const Loop *left = nullptr;
    for (Loop *loop = loops_.getLoopFor(predecessor); loop && !loop->contains(join);
         loop = loop->getParentLoop())
      left = loop;
    return left ? static_cast<const void *>(left) : predecessor;
  }

  bool isLoopHeader(const BasicBlock *block) const {
    Loop *loop = loops_.getLoopFor(block);
    return loop && loop->getHeader() == block;
  }

  /// The blocks where lanes that a divergent branch sent different ways may meet again: those
  /// both of its successors reach (around loops too) before its immediate post-dominator, that
  /// one included. Only their phis can receive different values in different lanes because of
  /// the branch; a block only one side reaches (a uniform branch's join inside that side) sees
  /// only that side's lanes.
  SmallVector<BasicBlock *, 16> divergentJoins(BasicBlock *branchBlock) {
    DomTreeNode *node = postDominators_.getNode(branchBlock);
    BasicBlock *meet = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
    auto reached = [&](BasicBlock *start) {
      SmallPtrSet<BasicBlock *, 16> seen;
      SmallVector<BasicBlock *, 16> worklist{start};
      while (!worklist.empty()) {
        BasicBlock *block = worklist.pop_back_val();
        if (!seen.insert(block).second || block == meet)
          continue;
        worklist.append(succ_begin(block), succ_end(block));
      }
      return seen;
    };
    SmallPtrSet<BasicBlock *, 16> first = reached(branchBlock->getTerminator()->getSuccessor(0));
    SmallPtrSet<BasicBlock *, 16> second = reached(branchBlock->getTerminator()->getSuccessor(1));
    SmallVector<BasicBlock *, 16> joins;
    for (BasicBlock *block : first)
      if (second.contains(block))
        joins.push_back(block);
    return joins;
  }

  //===--- Planning -------------------------------------------------------===//

  bool inScope(const Region &region, const BasicBlock *block) const {
    if (region.side)
      return region.side->contains(block);
    return region.loop == nullptr || region.loop->contains(block);
  }

  Node nodeOf(const Region &region, BasicBlock *block) {
    Loop *inner = loops_.getLoopFor(block);
    if (inner == region.loop)
      return {block, nullptr, hammockAt(region, block)};
    while (inner->getParentLoop() != region.loop)
      inner = inner->getParentLoop();
    return {nullptr, inner};
  }

  /// The hammock headed by `head`, a block of `region`'s own loop level, or null.
  const Hammock *hammockAt(const Region &region, BasicBlock *head) {
    auto found = hammockAt_.find(head);
    if (found != hammockAt_.end())
      return found->second;
    Hammock *hammock = findHammock(region, head);
    hammockAt_[head] = hammock;
    return hammock;
  }

  Hammock *findHammock(const Region &region, BasicBlock *head) {
    auto *branch = dyn_cast<BranchInst>(head->getTerminator());
    if (branch == nullptr || !branch->isConditional() ||
        branch->getSuccessor(0) == branch->getSuccessor(1) || divergent_.contains(head) ||
        head == region.uniformExiting)
      return nullptr;
    DomTreeNode *node = postDominators_.getNode(head);
    BasicBlock *join = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
    // A hammock inside a side may end where the side does (an if-else-if chain's returns).
    bool joinFits = join != nullptr && (join == region.sideJoin || inScope(region, join));
    if (!joinFits || (region.loop && join == region.loop->getHeader()))
      return nullptr;
    Hammock hammock;
    hammock.head = head;
    hammock.join = join;
    for (unsigned index = 0; index < 2; ++index) {
      BasicBlock *entry = branch->getSuccessor(index);
      if (entry == join)
        continue;
      if (entry->getSinglePredecessor() != head || !collectSide(region, hammock, index, entry))
        return nullptr;
    }
    hammocks_.push_back(std::move(hammock));
    return &hammocks_.back();
  }

  /// Fills side `index` of `hammock` with the blocks `entry` reaches before the join; false
  /// when they are not a region of their own (entered from elsewhere, left other than to the
  /// join, shared with the other side, or holding part of a loop).
  bool collectSide(const Region &region, Hammock &hammock, unsigned index, BasicBlock *entry) {
    Hammock::Side &side = hammock.sides[index];
    const BlockSet &other = hammock.sides[1 - index].blocks;
    side.entry = entry;
    SmallVector<BasicBlock *, 16> worklist{entry};
    while (!worklist.empty()) {
      BasicBlock *block = worklist.pop_back_val();
      if (block == hammock.join || side.blocks.contains(block))
        continue;
      if (block == hammock.head || !inScope(region, block) || other.contains(block) ||
          !dominators_.dominates(hammock.head, block))
        return false;
      side.blocks.insert(block);
      worklist.append(succ_begin(block), succ_end(block));
    }
    SmallPtrSet<const Loop *, 4> checked;
    for (const BasicBlock *block : side.blocks)
      for (Loop *loop = loops_.getLoopFor(block); loop != region.loop; loop = loop->getParentLoop())
        if (checked.insert(loop).second &&
            !all_of(loop->blocks(), [&](BasicBlock *inner) { return side.blocks.contains(inner); }))
          return false;
    return true;
  }

  /// Targets of a node's edges: inside the region (as nodes), or leaving it.
  struct Edges {
    SmallVector<Node, 4> inside;
    bool leaves = false; // exits the region or returns
  };

  Edges edgesOf(const Region &region, const Node &node) {
    Edges edges;
    SmallVector<BasicBlock *, 4> targets;
    if (node.loop) {
      node.loop->getUniqueExitBlocks(targets);
    } else if (node.hammock) {
      targets.push_back(node.hammock->join);
    } else {
      targets.append(succ_begin(node.block), succ_end(node.block));
      if (targets.empty())
        edges.leaves = true;
    }
    for (BasicBlock *target : targets) {
      bool backEdge = region.loop && target == region.loop->getHeader();
      if (!inScope(region, target) || backEdge) {
        // The exit of a uniform loop is a real branch: it does not make lanes leave early.
        if (!(region.uniformLoop && node.block == region.uniformExiting && !backEdge))
          edges.leaves = true;
        continue;
      }
      edges.inside.push_back(nodeOf(region, target));
    }
    return edges;
  }

  /// Orders `region`'s nodes topologically; fails on irreducible control flow.
  Error orderNodes(Region &region) {
    Node entry = nodeOf(region, region.entry);
    enum class Mark { Active, Done };
    DenseMap<BasicBlock *, Mark> marks;
    std::vector<Node> postOrder;
    std::function<Error(const Node &)> visit = [&](const Node &node) -> Error {
      marks[node.first()] = Mark::Active;
      for (const Node &next : edgesOf(region, node).inside) {
        auto found = marks.find(next.first());
        if (found != marks.end()) {
          if (found->second == Mark::Active)
            return compiler::codegenError("irreducible control flow");
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
    if (!region.loop && !region.side) {
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

  Expected<Region> planRegion(Loop *loop, BasicBlock *entry, const BlockSet *side = nullptr,
                              BasicBlock *sideJoin = nullptr) {
    Region region;
    region.loop = loop;
    region.entry = entry;
    region.side = side;
    region.sideJoin = sideJoin;
    if (loop && !side) {
      if (!loop->getLoopPreheader() || !loop->getLoopLatch() || !loop->hasDedicatedExits())
        return compiler::codegenError("a loop not in simplified form");
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
      if (node.loop) {
        Expected<Region> inner = planRegion(node.loop, node.loop->getHeader());
        if (!inner)
          return inner.takeError();
        regions_[node.loop] = std::move(*inner);
      }
      if (node.hammock)
        for (Hammock::Side &side : const_cast<Hammock *>(node.hammock)->sides) {
          if (side.entry == nullptr)
            continue;
          Expected<Region> inner = planRegion(loop, side.entry, &side.blocks, node.hammock->join);
          if (!inner)
            return inner.takeError();
          side.region = std::move(*inner);
        }
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
      // Every work-item of the group must reach a barrier: none in a hammock's sides either.
      if (node.hammock)
        for (const Hammock::Side &side : node.hammock->sides)
          if (side.entry)
            if (Error error = checkConvergentCalls(side.region, false))
              return error;
      if (full)
        continue;
      for (Instruction &instruction : *node.block)
        if (auto *call = dyn_cast<CallBase>(&instruction); call && seeds_.isBarrier(*call))
          return compiler::codegenError(
              "a barrier or other convergent call in divergent control flow");
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

  /// Linearizes `region`'s nodes into one chain; returns its first and last blocks (the last
  /// one's terminator is left to the caller). `entryMask`: the mask of the region's entry, or
  /// null to join the edges recorded into it. `regionFull`: whether that mask is never empty
  /// when the region runs (a hammock's side under a head that may run with no lane active is
  /// not).
  std::pair<BasicBlock *, BasicBlock *> linearizeRegion(const Region &region, Value *entryMask,
                                                        bool regionFull = true) {
    BasicBlock *first = nullptr, *previousLast = nullptr;
    for (const Node &node : region.order) {
      Value *mask = node == region.order.front() ? entryMask : nullptr;
      bool full = regionFull && region.fullBlocks.count(node.first());
      auto [nodeFirst, nodeLast] = node.loop      ? linearizeLoop(node.loop)
                                   : node.hammock ? linearizeHammock(*node.hammock, mask, full)
                                                  : linearizeBlock(node.block, mask);
      if (!node.loop && full)
        result_.fullBlocks.insert(node.block);
      if (previousLast)
        chain(previousLast, nodeFirst);
      else
        first = nodeFirst;
      previousLast = nodeLast;
    }
    return {first, previousLast};
  }

  /// A hammock: its head's branch stays, each side is a chain of its own that ends in a new
  /// merge block, and what the sides hand the join (masks, phi values) meets there in phis.
  std::pair<BasicBlock *, BasicBlock *> linearizeHammock(const Hammock &hammock, Value *entryMask,
                                                         bool full) {
    BasicBlock *head = hammock.head, *join = hammock.join;
    Value *mask = entryMask ? entryMask : joinIncoming(head);
    result_.blockMask[head] = mask;
    auto *merge = BasicBlock::Create(context_, head->getName() + ".uniform.join", &function_);
    result_.blockMask[merge] = mask;
    struct SideEnd {
      BasicBlock *first = nullptr, *last = nullptr;
      SmallVector<EdgeRecord, 4> toJoin;
    };
    std::array<SideEnd, 2> ends;
    for (unsigned index = 0; index < 2; ++index) {
      const Hammock::Side &side = hammock.sides[index];
      SideEnd &end = ends[index];
      if (side.entry == nullptr) { // the head's branch goes straight to the join
        end.first = merge;
        end.last = head;
        end.toJoin.push_back(edgeRecord(head, join, mask));
        continue;
      }
      record(head, side.entry, mask); // every lane of the head goes the way the branch goes
      size_t before = incoming_[join].size();
      std::tie(end.first, end.last) = linearizeRegion(side.region, nullptr, full);
      SmallVector<EdgeRecord, 4> &atJoin = incoming_[join];
      end.toJoin.append(std::make_move_iterator(atJoin.begin() + before),
                        std::make_move_iterator(atJoin.end()));
      atJoin.resize(before);
      chain(end.last, merge);
    }
    plans_[head] = {cast<BranchInst>(head->getTerminator())->getCondition(), ends[0].first,
                    ends[1].first};
    // Each side's edges into the join as one record, at the side's end; then one record for
    // both, in phis: only one side ran, and values the same in every lane stay so.
    std::array<EdgeRecord, 2> sideRecords;
    for (unsigned index = 0; index < 2; ++index) {
      BasicBlock *last = ends[index].last;
      IRBuilder<> atEnd(last);
      if (Instruction *terminator = last->getTerminator())
        atEnd.SetInsertPoint(terminator);
      sideRecords[index] = blendRecords(atEnd, ends[index].toJoin, join);
    }
    IRBuilder<> builder(merge);
    PHINode *edgeMask = builder.CreatePHI(builder.getInt1Ty(), 2, "uniform.mask");
    EdgeRecord merged{edgeMask, {}};
    for (unsigned index = 0; index < 2; ++index)
      edgeMask->addIncoming(sideRecords[index].mask, ends[index].last);
    for (PHINode &phi : join->phis()) {
      PHINode *value = builder.CreatePHI(phi.getType(), 2, phi.getName() + ".uniform");
      for (unsigned index = 0; index < 2; ++index)
        value->addIncoming(valueFor(sideRecords[index], &phi), ends[index].last);
      merged.phiValues.push_back({&phi, value});
    }
    incoming_[join].push_back(std::move(merged));
    return {head, merge};
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

  /// The edges `records` into `target` as one: the lanes of any of them, and for each of
  /// `target`'s phis the value of the edge each lane came along. One record is itself.
  static EdgeRecord blendRecords(IRBuilder<> &builder, ArrayRef<EdgeRecord> records,
                                 BasicBlock *target) {
    if (records.size() == 1)
      return records.front();
    EdgeRecord blended{nullptr, {}};
    for (const EdgeRecord &record : records)
      blended.mask = blended.mask ? orMask(builder, blended.mask, record.mask) : record.mask;
    if (blended.mask == nullptr)
      blended.mask = builder.getFalse(); // unreachable from the region's entry
    for (PHINode &phi : target->phis()) {
      Value *value = nullptr;
      for (const EdgeRecord &record : records) {
        Value *incoming = valueFor(record, &phi);
        value = value ? builder.CreateSelect(record.mask, incoming, value, phi.getName() + ".blend")
                      : incoming;
      }
      blended.phiValues.push_back({&phi, value ? value : PoisonValue::get(phi.getType())});
    }
    return blended;
  }

  /// The mask of a block reached through its recorded incoming edges; its phis become blends.
  Value *joinIncoming(BasicBlock *block) {
    SmallVector<EdgeRecord, 4> records = std::move(incoming_[block]);
    incoming_.erase(block);
    IRBuilder<> builder(block, block->getFirstInsertionPt());
    EdgeRecord blended = blendRecords(builder, records, block);
    for (PHINode &phi : make_early_inc_range(block->phis())) {
      phi.replaceAllUsesWith(valueFor(blended, &phi));
      phi.eraseFromParent();
    }
    return blended.mask;
  }

  static Value *valueFor(const EdgeRecord &record, PHINode *phi) {
    for (const auto &[target, value] : record.phiValues)
      if (target == phi)
        return value;
    return PoisonValue::get(phi->getType());
  }

  static EdgeRecord edgeRecord(BasicBlock *from, BasicBlock *to, Value *mask) {
    EdgeRecord edge{mask, {}};
    // (A loop header's own phis, the vectorizer's among them, are not replaced: skip them.)
    for (PHINode &phi : to->phis())
      if (int index = phi.getBasicBlockIndex(from); index >= 0)
        edge.phiValues.push_back({&phi, phi.getIncomingValue(index)});
    return edge;
  }

  void record(BasicBlock *from, BasicBlock *to, Value *mask) {
    incoming_[to].push_back(edgeRecord(from, to, mask));
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
    // Through a loop's only exit leave all the lanes that entered, so after it the lanes are the
    // loop's entry mask (which the optimizer can often prove full, where it could not the union
    // of the lanes that left): only a loop with several exits keeps a mask per exit.
    struct ExitState {
      BasicBlock *exit;
      PHINode *mask;                                          // null for a loop's only exit
      SmallVector<std::pair<PHINode *, PHINode *>, 4> values; // exit's phi, accumulator
    };
    SmallVector<ExitState, 4> states;
    for (BasicBlock *exit : exits) {
      ExitState state{exit, nullptr, {}};
      if (exits.size() > 1) {
        state.mask = phis.CreatePHI(builder.getInt1Ty(), 2, "exited");
        state.mask->addIncoming(builder.getFalse(), guard);
      }
      for (PHINode &phi : exit->phis()) {
        PHINode *accumulator = phis.CreatePHI(phi.getType(), 2, phi.getName() + ".out");
        accumulator->addIncoming(Constant::getNullValue(phi.getType()), guard);
        state.values.push_back({&phi, accumulator});
      }
      states.push_back(std::move(state));
    }

    BasicBlock *last = linearizeRegion(region, live).second;
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
      EdgeRecord out{entryMask, {}};
      if (state.mask != nullptr) {
        Value *exited = state.mask;
        for (const EdgeRecord &record : leaving)
          exited = orMask(builder, exited, record.mask);
        state.mask->addIncoming(exited, last);
        PHINode *finalMask = after.CreatePHI(builder.getInt1Ty(), 2, "exited.final");
        finalMask->addIncoming(builder.getFalse(), guard);
        finalMask->addIncoming(exited, last);
        out.mask = finalMask;
      }
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

    BasicBlock *last = linearizeRegion(region, entryMask).second;
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
  DenseSet<const Value *> forcedVarying_; // phis varying whatever their inputs
  DenseMap<const Loop *, Region> regions_;
  std::deque<Hammock> hammocks_;                      // stable addresses: nodes point to them
  DenseMap<const BasicBlock *, Hammock *> hammockAt_; // null for blocks that head none
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
