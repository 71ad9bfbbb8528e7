//===- spin_loop_yields.cpp - Waiting sub-groups let the others run ------===//
#include "devices/cpu/codegen/work_group/spin_loop_yields.hpp"

#include "compiler/llvm/device_queries.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// Whether a read-modify-write takes a ticket rather than reads a flag: adding or subtracting a
/// non-zero amount (a counter, a work queue's next index) goes on whatever others do.
bool takesATicket(const AtomicRMWInst &rmw) {
  if (rmw.getOperation() != AtomicRMWInst::Add && rmw.getOperation() != AtomicRMWInst::Sub)
    return false;
  const auto *amount = dyn_cast<ConstantInt>(rmw.getValOperand());
  return amount != nullptr && !amount->isZero();
}

/// Metadata on the reads a waiting loop waits on (markWaitingReads).
constexpr const char *kWaitingReadMark = "kiln.waiting.read";

/// Follows the values that decide whether a loop goes round again back to where they were read.
/// With `judge` (the scalar kernel), collects the reads of memory another sub-group may be
/// writing meanwhile; without it (the vectorized kernel, whose lanes' copies of each read keep
/// its metadata), finds those marked before.
class SpinLoopFinder {
public:
  SpinLoopFinder(const Loop &loop, bool judge) : loop_(loop), judge_(judge) {}

  /// The reads that decide whether the loop goes round again and may wait for another sub-group.
  SmallVector<Instruction *, 4> waitingReads() {
    SmallVector<BasicBlock *, 4> exiting;
    loop_.getExitingBlocks(exiting);
    for (BasicBlock *block : exiting) {
      if (auto *branch = dyn_cast<BranchInst>(block->getTerminator());
          branch && branch->isConditional())
        follow(branch->getCondition());
      else if (auto *choice = dyn_cast<SwitchInst>(block->getTerminator()))
        follow(choice->getCondition());
    }
    SmallVector<Instruction *, 4> reads;
    while (!worklist_.empty()) {
      auto *instruction = dyn_cast<Instruction>(worklist_.pop_back_val());
      if (instruction == nullptr || !loop_.contains(instruction))
        continue;
      if (judge_ ? readsSharedMemory(*instruction)
                 : instruction->getMetadata(kWaitingReadMark) != nullptr)
        reads.push_back(instruction);
      else
        followInputs(*instruction);
    }
    return reads;
  }

private:
  void follow(Value *value) {
    if (visited_.insert(value).second)
      worklist_.push_back(value);
  }

  /// What `instruction` computes from; for a load of a private variable (unoptimized code, the
  /// vectorizer's slots), also what the loop stores there.
  void followInputs(Instruction &instruction) {
    if (judge_ && successTestOf(instruction) != nullptr)
      return; // an update's retry waits for no one
    if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(&instruction); judge_ && exchange)
      return;
    if (auto *rmw = dyn_cast<AtomicRMWInst>(&instruction); judge_ && rmw)
      return;
    if (auto *load = dyn_cast<LoadInst>(&instruction))
      if (auto *slot = dyn_cast<AllocaInst>(getUnderlyingObject(load->getPointerOperand())))
        for (User *user : slot->users())
          if (auto *store = dyn_cast<StoreInst>(user))
            follow(store->getValueOperand());
    for (Use &operand : instruction.operands())
      follow(operand.get());
  }

  /// A compare-exchange that retries an update: the value it expects is one the loop read
  /// from the same location, by a load or by the compare-exchange's own last attempt. A lock's
  /// expected value is not (a constant, however the loop carries it).
  bool retriesAnUpdate(const AtomicCmpXchgInst &exchange) const {
    const Value *location = exchange.getPointerOperand()->stripPointerCasts();
    SmallVector<const Value *, 8> sources{exchange.getCompareOperand()};
    SmallPtrSet<const Value *, 8> seen;
    while (!sources.empty()) {
      const auto *source = dyn_cast<Instruction>(sources.pop_back_val());
      if (source == nullptr || !loop_.contains(source) || !seen.insert(source).second)
        continue;
      if (const auto *load = dyn_cast<LoadInst>(source)) {
        if (load->getPointerOperand()->stripPointerCasts() == location)
          return true;
      } else if (const auto *extract = dyn_cast<ExtractValueInst>(source)) {
        if (extract->getAggregateOperand() == &exchange && extract->getIndices()[0] == 0)
          return true;
      } else if (isa<PHINode, SelectInst, CastInst, FreezeInst>(source)) {
        for (const Use &operand : source->operands())
          sources.push_back(operand.get());
      }
    }
    return false;
  }

  /// `old == expected` (or !=) on the value a retrying compare-exchange returned: its success.
  const AtomicCmpXchgInst *successTestOf(const Instruction &instruction) const {
    using namespace PatternMatch;
    const Value *returned = nullptr, *other = nullptr;
    if (!match(&instruction, m_ICmp(m_Value(returned), m_Value(other))))
      return nullptr;
    for (int side = 0; side < 2; ++side, std::swap(returned, other))
      if (const auto *extract = dyn_cast<ExtractValueInst>(returned);
          extract && extract->getNumIndices() == 1 && extract->getIndices()[0] == 0)
        if (const auto *exchange = dyn_cast<AtomicCmpXchgInst>(extract->getAggregateOperand());
            exchange && exchange->getCompareOperand() == other && retriesAnUpdate(*exchange))
          return exchange;
    return nullptr;
  }

  /// Whether `instruction` reads memory another sub-group may be writing while the loop runs.
  /// Private memory is the work-item's own.
  bool readsSharedMemory(const Instruction &instruction) const {
    if (const auto *load = dyn_cast<LoadInst>(&instruction))
      return (load->isAtomic() || load->isVolatile()) &&
             !isa<AllocaInst>(getUnderlyingObject(load->getPointerOperand()));
    if (const auto *rmw = dyn_cast<AtomicRMWInst>(&instruction))
      return !takesATicket(*rmw);
    if (const auto *exchange = dyn_cast<AtomicCmpXchgInst>(&instruction))
      return !retriesAnUpdate(*exchange);
    return false;
  }

  const Loop &loop_;
  bool judge_;
  SmallPtrSet<const Value *, 32> visited_;
  SmallVector<Value *, 32> worklist_;
};

} // namespace

namespace {

/// Whether `instruction` is a read another sub-group's writes can change: most kernels have none,
/// and need no loop analysis.
bool mayReadOthersWrites(const Instruction &instruction) {
  if (const auto *load = dyn_cast<LoadInst>(&instruction))
    return load->isAtomic() || load->isVolatile();
  return isa<AtomicRMWInst, AtomicCmpXchgInst>(instruction);
}

bool markReadsOfWaitingLoops(Function &function) {
  if (none_of(instructions(function), mayReadOthersWrites))
    return false;
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  TargetLibraryInfoImpl libraryInfo(function.getParent()->getTargetTriple());
  TargetLibraryInfo library(libraryInfo, &function);
  AssumptionCache assumptions(function);
  ScalarEvolution evolution(function, library, assumptions, dominators, loops);
  const Function *retriesWithoutWaiting =
      function.getParent()->getFunction(compiler::kRetriesWithoutWaitingMark);
  auto retriesOnlyAfterOthers = [&](const Loop &loop) {
    return retriesWithoutWaiting != nullptr &&
           any_of(retriesWithoutWaiting->users(), [&](const User *user) {
             const auto *call = dyn_cast<CallBase>(user);
             return call != nullptr && loop.contains(call);
           });
  };
  bool marked = false;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    // A loop whose trips have a bound ends whatever others do; the builtin library marks the
    // loops that go round again only after another work-item's progress.
    if (!isa<SCEVCouldNotCompute>(evolution.getSymbolicMaxBackedgeTakenCount(loop)) ||
        retriesOnlyAfterOthers(*loop))
      continue;
    for (Instruction *read : SpinLoopFinder(*loop, /*judge=*/true).waitingReads()) {
      read->setMetadata(kWaitingReadMark, MDNode::get(function.getContext(), {}));
      marked = true;
    }
  }
  return marked;
}

} // namespace

bool markWaitingReads(Function &function) {
  bool marked = markReadsOfWaitingLoops(function);
  compiler::deleteMarks(*function.getParent(), compiler::kRetriesWithoutWaitingMark);
  return marked;
}

unsigned insertSpinLoopYields(Function &function) {
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> backEdges;
  unsigned spinLoops = 0;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (SpinLoopFinder(*loop, /*judge=*/false).waitingReads().empty())
      continue;
    ++spinLoops;
    SmallVector<BasicBlock *, 2> latches;
    loop->getLoopLatches(latches);
    for (BasicBlock *latch : latches)
      backEdges.emplace_back(latch, loop->getHeader());
  }
  for (Instruction &instruction : instructions(function))
    instruction.setMetadata(kWaitingReadMark, nullptr);
  if (backEdges.empty())
    return 0;
  Module &module = *function.getParent();
  FunctionCallee yield = module.getOrInsertFunction(
      kSubGroupYieldName, FunctionType::get(Type::getVoidTy(module.getContext()), false));
  for (auto [latch, header] : backEdges) {
    BasicBlock *edge = SplitEdge(latch, header);
    IRBuilder<> builder(edge->getTerminator());
    builder.CreateCall(yield);
  }
  return spinLoops;
}

} // namespace kiln::cpu
