//===- indirect_prefetch.cpp - Prefetching the targets of indexed loads ahead ===//
#include "devices/cpu/codegen/indirect_prefetch.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/work_group_function.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <functional>
#include <optional>

using namespace llvm;

namespace kiln::cpu {
namespace {

/// How far ahead the index is read, in bytes of the index array: far enough that the prefetch
/// covers a memory latency at the rate such loops run (a few nanoseconds an iteration), near
/// enough to stay mostly within the page a bounded read must not leave. 64 four-byte indices
/// measured best on the CSR SpMV benchmark (1.08x faster than none on a Zen 4 with the bound;
/// 128 and 192 bytes gained less, 512 and 1024 lost).
constexpr int64_t kReadAheadBytes = 256;
// An index read at address A, the last element in its buffer at the latest, is read ahead at
// A + kReadAheadBytes: its last byte lies within kReadAheadBytes of the buffer's end.
static_assert(kReadAheadBytes <= kBufferReadSlackBytes);

/// The smallest page size of the CPUs Kiln runs on: the bound the read-ahead stays within.
constexpr uint64_t kPageBytes = 4096;

/// At most this many instructions between the index load and the address it selects.
constexpr unsigned kMaxChainLength = 8;

/// At most this many prefetches a loop, so that a loop of many gathers is not bloated.
constexpr unsigned kMaxPerLoop = 4;

bool readsBuffers(const LoadInst &load) {
  unsigned space = load.getPointerAddressSpace();
  return space == compiler::spir::kGlobalAddressSpace ||
         space == compiler::spir::kConstantAddressSpace;
}

bool isPlainScalarLoad(const LoadInst &load) {
  return load.isSimple() && !load.getType()->isVectorTy() && readsBuffers(load);
}

/// An indexed load: `target` reads an address computed (by `chain`, in operand-before-user
/// order) from the value of `index` and loop-invariant values only.
struct IndexedLoad {
  LoadInst *target = nullptr;
  LoadInst *index = nullptr;
  SmallVector<Instruction *, kMaxChainLength> chain;
};

/// Finds the index load that `target`'s address is computed from, through arithmetic, casts
/// and address computations on loop-invariant operands; none when there is none, or more than
/// one, or anything else varies with the loop.
std::optional<IndexedLoad> indexedLoadOf(LoadInst &target, const Loop &loop) {
  IndexedLoad found;
  found.target = &target;
  SmallPtrSet<Instruction *, 16> visited;
  // Depth-first, emitting an instruction after its operands.
  std::function<bool(Value *)> visit = [&](Value *value) -> bool {
    if (loop.isLoopInvariant(value))
      return true;
    auto *instruction = dyn_cast<Instruction>(value);
    if (instruction == nullptr)
      return false;
    if (!visited.insert(instruction).second)
      return true;
    if (auto *load = dyn_cast<LoadInst>(instruction)) {
      if (found.index != nullptr || !isPlainScalarLoad(*load) || !load->getType()->isIntegerTy())
        return false;
      found.index = load;
      return true;
    }
    // No division: the copy runs on an index read past the loop's own, which may be anything
    // (a zero or INT_MIN / -1 would trap where the original never divides).
    if (!isa<GetElementPtrInst, CastInst, BinaryOperator>(instruction) ||
        instruction->isIntDivRem() || found.chain.size() == kMaxChainLength)
      return false;
    for (Value *operand : instruction->operands())
      if (!visit(operand))
        return false;
    found.chain.push_back(instruction);
    return true;
  };
  if (!visit(target.getPointerOperand()) || found.index == nullptr)
    return std::nullopt;
  return found;
}

/// The bytes the loop's index pointer advances each iteration, when it walks forward by a
/// constant step of at most one element.
std::optional<int64_t> forwardStep(LoadInst &index, const Loop &loop, ScalarEvolution &evolution) {
  const auto *walk = dyn_cast<SCEVAddRecExpr>(evolution.getSCEV(index.getPointerOperand()));
  if (walk == nullptr || walk->getLoop() != &loop || !walk->isAffine())
    return std::nullopt;
  const auto *step = dyn_cast<SCEVConstant>(walk->getStepRecurrence(evolution));
  uint64_t elementBytes = index.getDataLayout().getTypeStoreSize(index.getType());
  if (step == nullptr || step->getAPInt().getSExtValue() <= 0 ||
      step->getAPInt().getSExtValue() > static_cast<int64_t>(elementBytes))
    return std::nullopt;
  return step->getAPInt().getSExtValue();
}

/// Whether `target` reads memory in order along the loop: the hardware prefetches that.
bool walksInOrder(LoadInst &target, const Loop &loop, ScalarEvolution &evolution) {
  const auto *walk = dyn_cast<SCEVAddRecExpr>(evolution.getSCEV(target.getPointerOperand()));
  return walk != nullptr && walk->getLoop() == &loop;
}

/// Emits, before `index`, the read of the index `kReadAheadBytes` ahead; returns the value read.
/// Unless `unbounded`, the read is clamped to the last whole index of the page that `index`
/// reads. (The clamp costs the loop five instructions an iteration: in the CSR SpMV benchmark,
/// 2.97 GFLOP/s against 3.62-3.73 without it on a Zen 4.)
Value *readIndexAhead(LoadInst &index, bool unbounded) {
  IRBuilder<> builder(&index);
  Type *addressType = builder.getInt64Ty();
  uint64_t bytes = index.getDataLayout().getTypeStoreSize(index.getType());
  Value *address = builder.CreatePtrToInt(index.getPointerOperand(), addressType);
  Value *ahead = builder.CreateAdd(address, builder.getInt64(kReadAheadBytes));
  if (!unbounded) {
    Value *lastInPage = builder.CreateAdd(builder.CreateAnd(address, ~(kPageBytes - 1)),
                                          builder.getInt64(kPageBytes - bytes));
    ahead = builder.CreateIntrinsic(Intrinsic::umin, {addressType}, {ahead, lastInPage});
  }
  Value *pointer = builder.CreateIntToPtr(ahead, index.getPointerOperandType());
  // Volatile: the optimizer must neither drop it nor reason about the object it reads, which
  // may lie past the buffer's end.
  return builder.CreateAlignedLoad(index.getType(), pointer, Align(1), /*isVolatile=*/true,
                                   "index.ahead");
}

/// Emits, before `indexed.index`, the prefetch of the address `indexed.target` will read when
/// the index is `aheadIndex`.
void prefetchTarget(const IndexedLoad &indexed, Value *aheadIndex) {
  IRBuilder<> builder(indexed.index);
  DenseMap<Value *, Value *> clones{{indexed.index, aheadIndex}};
  for (Instruction *original : indexed.chain) {
    Instruction *copy = original->clone();
    for (Use &operand : copy->operands())
      if (auto it = clones.find(operand.get()); it != clones.end())
        operand.set(it->second);
    // No wrap flags: the address ahead may leave the object the original stays within.
    if (auto *address = dyn_cast<GetElementPtrInst>(copy))
      address->setNoWrapFlags(GEPNoWrapFlags::none());
    else
      copy->dropPoisonGeneratingFlags();
    builder.Insert(copy, original->getName() + ".ahead");
    clones[original] = copy;
  }
  Value *address = clones.lookup(indexed.target->getPointerOperand());
  builder.CreateIntrinsic(Intrinsic::prefetch, {address->getType()},
                          {address, builder.getInt32(0) /*read*/, builder.getInt32(3) /*keep*/,
                           builder.getInt32(1) /*data*/});
}

} // namespace

unsigned addIndirectPrefetches(Function &function, bool buffersHaveReadSlack) {
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  TargetLibraryInfoImpl libraryInfo(Triple(function.getParent()->getTargetTriple()));
  TargetLibraryInfo library(libraryInfo, &function);
  AssumptionCache assumptions(function);
  ScalarEvolution evolution(function, library, assumptions, dominators, loops);

  SmallVector<IndexedLoad, 8> indexedLoads;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost())
      continue;
    unsigned inLoop = 0;
    for (BasicBlock *block : loop->blocks())
      for (Instruction &instruction : *block) {
        auto *target = dyn_cast<LoadInst>(&instruction);
        if (target == nullptr || inLoop == kMaxPerLoop || !isPlainScalarLoad(*target) ||
            walksInOrder(*target, *loop, evolution))
          continue;
        std::optional<IndexedLoad> indexed = indexedLoadOf(*target, *loop);
        if (!indexed || !forwardStep(*indexed->index, *loop, evolution))
          continue;
        indexedLoads.push_back(std::move(*indexed));
        ++inLoop;
      }
  }
  // One read ahead per index load, however many targets it selects.
  DenseMap<LoadInst *, Value *> aheadIndices;
  for (const IndexedLoad &indexed : indexedLoads) {
    Value *&ahead = aheadIndices[indexed.index];
    if (ahead == nullptr) {
      // A loop that reads a buffer argument reads within the buffer, so slack past the
      // buffer's end covers the read ahead of it.
      const Value *array = getUnderlyingObject(indexed.index->getPointerOperand());
      ahead = readIndexAhead(*indexed.index, buffersHaveReadSlack && isBufferArgument(array));
    }
    prefetchTarget(indexed, ahead);
  }
  return indexedLoads.size();
}

} // namespace kiln::cpu
