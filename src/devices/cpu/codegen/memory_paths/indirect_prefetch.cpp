//===- indirect_prefetch.cpp - Prefetching the targets of indexed loads ahead ===//
#include "devices/cpu/codegen/memory_paths/indirect_prefetch.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/memory_paths/address_chain.hpp"
#include "devices/cpu/codegen/work_group/work_group_function.hpp"

#include "llvm/ADT/DenseMap.h"
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

/// At most this many prefetches a loop, so that a loop of many gathers is not bloated.
constexpr unsigned kMaxPerLoop = 4;

bool isPlainScalarLoad(const LoadInst &load) {
  return load.isSimple() && !load.getType()->isVectorTy() &&
         compiler::spir::isBufferAddressSpace(load.getPointerAddressSpace());
}

/// An indexed load: `target` reads an address computed from the value an index load (the
/// chain's source) reads and loop-invariant values only.
struct IndexedLoad {
  LoadInst *target = nullptr;
  AddressChain computed;
  LoadInst *index() const { return cast<LoadInst>(computed.source); }
};

/// The index load `target`'s address follows from; none when it follows from none, from more
/// than one, or from anything else that varies with the loop.
std::optional<IndexedLoad> indexedLoadOf(LoadInst &target, const Loop &loop) {
  std::optional<AddressChain> computed =
      addressChainOf(target.getPointerOperand(), loop, [](Instruction &instruction) {
        auto *load = dyn_cast<LoadInst>(&instruction);
        return load != nullptr && isPlainScalarLoad(*load) && load->getType()->isIntegerTy();
      });
  if (!computed)
    return std::nullopt;
  return IndexedLoad{&target, std::move(*computed)};
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

/// Emits, before the index load, the prefetch of the address `indexed.target` will read when
/// the index is `aheadIndex`.
void prefetchTarget(const IndexedLoad &indexed, Value *aheadIndex) {
  IRBuilder<> builder(indexed.index());
  Value *address =
      copyAddressChain(indexed.computed, indexed.target->getPointerOperand(), aheadIndex, builder);
  prefetchForReading(address, /*locality=*/3, builder);
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
        if (!indexed || !forwardStep(*indexed->index(), *loop, evolution))
          continue;
        indexedLoads.push_back(std::move(*indexed));
        ++inLoop;
      }
  }
  // One read ahead per index load, however many targets it selects.
  DenseMap<LoadInst *, Value *> aheadIndices;
  for (const IndexedLoad &indexed : indexedLoads) {
    Value *&ahead = aheadIndices[indexed.index()];
    if (ahead == nullptr) {
      // A loop that reads a buffer argument reads within the buffer, so slack past the
      // buffer's end covers the read ahead of it.
      const Value *array = getUnderlyingObject(indexed.index()->getPointerOperand());
      ahead = readIndexAhead(*indexed.index(), buffersHaveReadSlack && isBufferArgument(array));
    }
    prefetchTarget(indexed, ahead);
  }
  return indexedLoads.size();
}

} // namespace kiln::cpu
