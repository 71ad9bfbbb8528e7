//===- grid_stride_turns.cpp - Grid-stride loops of neighbouring work-groups in step ===//
#include "devices/cpu/codegen/work_group/grid_stride_turns.hpp"

#include "devices/cpu/codegen/memory_paths/strided_prefetch.hpp"
#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"
#include "devices/cpu/work_group_abi.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>

using namespace llvm;

namespace kiln::cpu {
namespace {

static_assert(isPowerOf2_32(kIterationsPerTurn), "the turn's test is a mask");

/// What the neighbouring work-groups should read of each stretch together: a page.
constexpr uint64_t kPageBytes = 4096;

/// Puts a turn on `loop`'s back edge, every kIterationsPerTurn iterations; `prologue` holds the
/// variables its values cross the turn in.
void giveTurn(Loop &loop, Function &turn, BasicBlock &prologue) {
  BasicBlock *header = loop.getHeader();
  Function &function = *header->getParent();
  LLVMContext &context = function.getContext();
  Type *i32 = Type::getInt32Ty(context);

  BasicBlock *backEdge = SplitEdge(loop.getLoopLatch(), header);
  backEdge->setName("grid.stride.next");
  BasicBlock *turnBlock = BasicBlock::Create(context, "grid.stride.turn", &function, header);
  BasicBlock *resume = BasicBlock::Create(context, "grid.stride.resume", &function, header);
  IRBuilder<> atTurn(turnBlock), atResume(resume);
  IRBuilder<> variables(&prologue, prologue.begin());
  for (PHINode &phi : header->phis()) {
    Value *carried = phi.getIncomingValueForBlock(backEdge);
    AllocaInst *saved = variables.CreateAlloca(phi.getType(), nullptr, phi.getName() + ".turn");
    atTurn.CreateStore(carried, saved);
    phi.addIncoming(atResume.CreateLoad(phi.getType(), saved, phi.getName() + ".resumed"), resume);
  }
  atTurn.CreateCall(&turn);
  atTurn.CreateBr(resume);
  atResume.CreateBr(header);

  // Iterations since the last turn (or the loop's start).
  IRBuilder<> atHeader(header, header->begin());
  PHINode *count = atHeader.CreatePHI(i32, 3, "turn.count");
  backEdge->getTerminator()->eraseFromParent();
  IRBuilder<> atBackEdge(backEdge);
  Value *next = atBackEdge.CreateAdd(count, atBackEdge.getInt32(1), "turn.count.next");
  Value *due = atBackEdge.CreateICmpEQ(
      atBackEdge.CreateAnd(next, atBackEdge.getInt32(kIterationsPerTurn - 1)),
      atBackEdge.getInt32(0), "turn.due");
  BranchInst *latch = atBackEdge.CreateCondBr(due, turnBlock, header);
  // The loop stays rolled, as a loop bounded by its data is (its exit at the turn would let
  // LLVM unroll it, and the strided prefetches find the counter's step only in a rolled loop).
  Metadata *rolled[] = {nullptr,
                        MDNode::get(context, MDString::get(context, "llvm.loop.unroll.disable")),
                        MDNode::get(context, MDString::get(context, kTakesTurnsMark))};
  MDNode *loopId = MDNode::getDistinct(context, rolled);
  loopId->replaceOperandWith(0, loopId);
  latch->setMetadata(LLVMContext::MD_loop, loopId);
  for (BasicBlock *predecessor : predecessors(header))
    if (count->getBasicBlockIndex(predecessor) < 0)
      count->addIncoming(predecessor == backEdge ? next : atHeader.getInt32(0), predecessor);
}

} // namespace

bool takesTurns(const Loop &loop) {
  return findOptionMDForLoop(&loop, kTakesTurnsMark) != nullptr;
}

GridStrideTurns insertGridStrideTurns(Function &function, uint64_t groupItems, unsigned simdWidth) {
  GridStrideTurns result;
  if (simdWidth < 2 || groupItems == 0)
    return result;
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  SmallVector<Loop *, 4> chosen;
  uint64_t bytesPerItem = 0;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || loop->getLoopLatch() == nullptr)
      continue;
    uint64_t bytes = farStrideBytes(*loop, vectorizer::callsUniformPrimitive);
    if (bytes == 0)
      continue;
    chosen.push_back(loop);
    bytesPerItem = std::max<uint64_t>(bytesPerItem, std::max<uint64_t>(bytes / simdWidth, 1));
  }
  if (chosen.empty())
    return result;
  uint64_t groupBytes = groupItems * bytesPerItem;
  uint64_t groups = PowerOf2Ceil(std::max<uint64_t>(divideCeil(kPageBytes, groupBytes), 1));
  groups = std::min<uint64_t>(groups, kMaxGroupsInStep);
  // A work-group of one SIMD group that reads whole pages alone has nothing to gain.
  if (groups == 1 && groupItems <= simdWidth)
    return result;
  Module &module = *function.getParent();
  auto *turn = cast<Function>(
      module
          .getOrInsertFunction(kWorkGroupTurnName,
                               FunctionType::get(Type::getVoidTy(module.getContext()), false))
          .getCallee());
  for (Loop *loop : chosen)
    giveTurn(*loop, *turn, function.getEntryBlock());
  result.loops = static_cast<unsigned>(chosen.size());
  result.groupsInStep = static_cast<unsigned>(groups);
  return result;
}

} // namespace kiln::cpu
