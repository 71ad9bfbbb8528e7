//===- strided_prefetch.cpp - Prefetching loads that stride far ---------===//
#include "devices/cpu/codegen/memory_paths/strided_prefetch.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/memory_paths/address_chain.hpp"
#include "devices/cpu/codegen/work_group/grid_stride_turns.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace kiln::cpu {
namespace {

/// How many iterations ahead the lines are prefetched: enough misses in flight to keep memory
/// busy. Against no prefetches, the grid-stride sum of the reduction benchmark (64 lanes of
/// floats, 256 bytes an iteration, a 64 KiB stride) ran 0.99-1.03x as fast with them 8
/// iterations ahead, 1.75-1.85x at 24, 1.56-1.69x at 32 and 1.80-1.90x at 48 on a Zen 4 (with
/// locality 2). A loop that takes turns (work_group/grid_stride_turns.hpp) prefetches one turn
/// ahead instead: between two of its iterations that far apart, the neighbouring work-groups in
/// step run their turns, so 24 iterations lie three rounds of a worker's reading ahead, far
/// enough for the lines to leave the nearer caches before they are read. On 16 Xeon cores the
/// suite's reductions read at 0.95-1.09x native with one turn (8 iterations) ahead, 0.78-1.05x with
/// 4, 0.63-0.92x with 16 and 0.62-0.88x with none.
constexpr int64_t kIterationsAhead = 24;

constexpr unsigned kLineBytes = 64;

/// A constant stride from this many bytes up leaves most of each page to the iterations of
/// other SIMD groups, as a stride known at run time does: the suite's subdivision sums each
/// leaf's range with `i += get_local_size(0)`, a constant of 1 KiB once the CPU device has
/// specialized the local size, and read at 0.4x native on 2 cores without prefetches and turns.
/// Below it, a SIMD group of 32 or more lanes reads at least half of each run itself.
constexpr uint64_t kMinConstantStrideBytes = 256;

/// At most this many lines prefetched for one load, and this many loads per loop: enough for
/// 64 lanes of doubles, without bloating loops that read many arrays.
constexpr unsigned kMaxLinesPerLoad = 8;
constexpr unsigned kMaxLoadsPerLoop = 4;

/// Loops that run more instructions than this for each line they would prefetch get no
/// prefetches (see waitsOnMemory): a miss to memory costs a few hundred cycles, about what a
/// thousand instructions take, so below that a loop still waits on its lines.
constexpr uint64_t kMaxInstructionsPerLine = 1024;

/// The address a plain or masked load of buffer memory reads, and how many bytes; none for
/// any other instruction.
std::optional<std::pair<Value *, uint64_t>> bufferRead(Instruction &instruction) {
  const DataLayout &layout = instruction.getDataLayout();
  if (auto *load = dyn_cast<LoadInst>(&instruction)) {
    if (!load->isSimple() || !compiler::spir::isBufferAddressSpace(load->getPointerAddressSpace()))
      return std::nullopt;
    return std::pair{load->getPointerOperand(), layout.getTypeStoreSize(load->getType())};
  }
  if (auto *call = dyn_cast<IntrinsicInst>(&instruction);
      call != nullptr && call->getIntrinsicID() == Intrinsic::masked_load) {
    Value *pointer = call->getArgOperand(0);
    if (!compiler::spir::isBufferAddressSpace(pointer->getType()->getPointerAddressSpace()))
      return std::nullopt;
    return std::pair{pointer, layout.getTypeStoreSize(call->getType()).getFixedValue()};
  }
  return std::nullopt;
}

/// How `address` follows from a phi of the loop's header (its counter, the chain's source).
std::optional<AddressChain> counterAddressOf(Value *address, const Loop &loop) {
  return addressChainOf(address, loop, [&](Instruction &instruction) {
    return isa<PHINode>(instruction) && instruction.getParent() == loop.getHeader();
  });
}

/// Whether `value` is `counter` itself, or `counter` narrowed, widened or masked: what a
/// `uint` counter kept in a 64-bit register looks like.
bool followsCounter(Value *value, const PHINode &counter) {
  for (unsigned depth = 0; depth < 4; ++depth) {
    if (value == &counter)
      return true;
    Value *source = nullptr;
    if (!match(value, m_CombineOr(m_CombineOr(m_ZExt(m_Value(source)), m_SExt(m_Value(source))),
                                  m_CombineOr(m_Trunc(m_Value(source)),
                                              m_And(m_Value(source), m_ConstantInt())))))
      return false;
    value = source;
  }
  return false;
}

/// Tells the calls that return the same value wherever a work-item makes them; none when null.
using LaunchConstantCalls = function_ref<bool(const CallInst &)>;

/// Whether `value` is the same in every iteration of `loop`: defined outside it, or a launch
/// constant of invariant operands that the loop computes each time (get_global_size(0) before
/// LICM has hoisted it).
bool isInvariant(Value *value, const Loop &loop, LaunchConstantCalls isLaunchConstant) {
  if (loop.isLoopInvariant(value))
    return true;
  auto *call = dyn_cast<CallInst>(value);
  return isLaunchConstant && call != nullptr && isLaunchConstant(*call) &&
         loop.hasLoopInvariantOperands(call);
}

/// What `counter` adds each iteration, when that is loop-invariant (see isInvariant): a value
/// known at run time, or a constant.
Value *loopInvariantStep(const PHINode &counter, const Loop &loop,
                         LaunchConstantCalls isLaunchConstant = nullptr) {
  BasicBlock *latch = loop.getLoopLatch();
  if (latch == nullptr)
    return nullptr;
  Value *next = counter.getIncomingValueForBlock(latch);
  // A `uint` counter advanced by a size_t step is added in 64 bits and narrowed, until
  // instcombine narrows the addition.
  Value *narrowed = nullptr;
  if (match(next, m_Trunc(m_Value(narrowed))))
    next = narrowed;
  Value *left = nullptr, *right = nullptr;
  if (!match(next, m_Add(m_Value(left), m_Value(right))))
    return nullptr;
  for (auto [step, rest] : {std::pair{left, right}, std::pair{right, left}})
    if (isInvariant(step, loop, isLaunchConstant) && followsCounter(rest, counter))
      return step;
  return nullptr;
}

/// Which constant strides count as far: the kernel's own loops are looked at before the work-item
/// loops exist, which (vectorized and unrolled) step over their lanes' contiguous vectors by
/// constants too; after that only the loops that took turns, found far before.
enum class ConstantStrides { Far, OnlyInLoopsThatTakeTurns };

/// Whether a load at `address`, computed by `computed` from a counter that adds `step` each
/// iteration, jumps far: by a step known only at run time (the launch's width, a matrix's row),
/// or by a constant one of at least kMinConstantStrideBytes.
bool stridesFar(const AddressChain &computed, Value *address, Value *step) {
  auto *constant = dyn_cast<ConstantInt>(step);
  if (constant == nullptr)
    return !isa<Constant>(step);
  std::optional<int64_t> bytesPerStep =
      bytesPerSourceStep(computed, address, computed.source->getDataLayout());
  if (!bytesPerStep || constant->getBitWidth() > 64)
    return false;
  auto magnitude = [](int64_t value) {
    return value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  };
  uint64_t perStep = magnitude(*bytesPerStep), steps = magnitude(constant->getSExtValue());
  return perStep != 0 && steps != 0 && steps >= divideCeil(kMinConstantStrideBytes, perStep);
}

/// A load to prefetch for: the address it reads, how many bytes, and how that address follows
/// the counter.
struct StridedLoad {
  Value *address = nullptr;
  uint64_t bytes = 0;
  AddressChain computed;
  Value *step = nullptr;

  PHINode *counter() const { return cast<PHINode>(computed.source); }
};

/// The lines prefetched for `load`.
unsigned linesOf(const StridedLoad &load) {
  return std::min<uint64_t>((load.bytes + kLineBytes - 1) / kLineBytes, kMaxLinesPerLoad);
}

/// The counter's value kIterationsAhead iterations ahead (one turn ahead in a loop that takes
/// turns), computed at the top of the header.
Value *counterAhead(const StridedLoad &load, const Loop &loop) {
  int64_t iterationsAhead = takesTurns(loop) ? kIterationsPerTurn : kIterationsAhead;
  // The distance is loop-invariant: computed once before the loop where it has a single way in.
  BasicBlock *before = loop.getLoopPredecessor();
  IRBuilder<> builder(before != nullptr ? before->getTerminator()
                                        : &*loop.getHeader()->getFirstInsertionPt());
  // A step wider than the counter (see loopInvariantStep) advances it modulo the counter's width.
  Value *step = builder.CreateZExtOrTrunc(load.step, load.counter()->getType());
  Value *distance =
      builder.CreateMul(step, ConstantInt::get(step->getType(), iterationsAhead), "stride.ahead");
  if (before != nullptr)
    builder.SetInsertPoint(loop.getHeader(), loop.getHeader()->getFirstInsertionPt());
  return builder.CreateAdd(load.counter(), distance, "counter.ahead");
}

/// Emits, at the top of the loop's header, the prefetches of the lines `load` will read
/// kIterationsAhead iterations later.
void prefetchAhead(const StridedLoad &load, Value *aheadCounter, const Loop &loop) {
  BasicBlock *header = loop.getHeader();
  IRBuilder<> builder(header, std::next(cast<Instruction>(aheadCounter)->getIterator()));
  Value *address = copyAddressChain(load.computed, load.address, aheadCounter, builder);
  unsigned lines = linesOf(load);
  for (unsigned line = 0; line < lines; ++line) {
    Value *lineAddress = line == 0 ? address
                                   : builder.CreateConstGEP1_64(builder.getInt8Ty(), address,
                                                                int64_t{line} * kLineBytes);
    // Into the caches short of the first level (prefetcht1 on x86): at 32 iterations ahead,
    // prefetching into the first level (locality 3) or past the caches (0) made the reduction
    // 0.7x as fast as without prefetches, locality 2 1.7x.
    prefetchForReading(lineAddress, /*locality=*/2, builder);
  }
}

/// The loads of `loop` to prefetch for, at most kMaxLoadsPerLoop; see isInvariant for
/// `isLaunchConstant`.
SmallVector<StridedLoad, kMaxLoadsPerLoop>
stridedLoadsOf(const Loop &loop, ConstantStrides constantStrides,
               LaunchConstantCalls isLaunchConstant = nullptr) {
  bool constantStridesCount = constantStrides == ConstantStrides::Far || takesTurns(loop);
  SmallVector<StridedLoad, kMaxLoadsPerLoop> loads;
  // The vectorizer reads an address with a plain load where every lane is active and a masked
  // one elsewhere: one prefetch serves both.
  SmallPtrSet<Value *, kMaxLoadsPerLoop> addresses;
  for (BasicBlock *block : loop.blocks())
    for (Instruction &instruction : *block) {
      if (loads.size() == kMaxLoadsPerLoop)
        return loads;
      std::optional<std::pair<Value *, uint64_t>> read = bufferRead(instruction);
      if (!read || addresses.contains(read->first))
        continue;
      std::optional<AddressChain> computed = counterAddressOf(read->first, loop);
      if (!computed)
        continue;
      Value *step = loopInvariantStep(cast<PHINode>(*computed->source), loop, isLaunchConstant);
      if (step == nullptr || (isa<Constant>(step) && !constantStridesCount) ||
          !stridesFar(*computed, read->first, step))
        continue;
      loads.push_back(StridedLoad{read->first, read->second, std::move(*computed), step});
      addresses.insert(read->first);
    }
  return loads;
}

/// Whether `loop` does little enough work per line that `loads` read for their misses to be
/// what it waits on. (The suite's reduction, a few instructions a line, ran 1.6-1.9x as fast
/// with prefetches on a Zen 4. Its histogram, 32 per-lane increments of local counters for
/// each half line it reads, some 400 instructions a line, ran 0.86-1.01x as fast there, and
/// 2.5-3.9x as fast on the 2-core Xeon of CI, where without them it read 0.44 GB/s.)
bool waitsOnMemory(const Loop &loop, ArrayRef<StridedLoad> loads) {
  uint64_t lines = 0;
  for (const StridedLoad &load : loads)
    lines += linesOf(load);
  uint64_t instructions = 0;
  for (const BasicBlock *block : loop.blocks())
    instructions += block->sizeWithoutDebug();
  return lines != 0 && instructions <= kMaxInstructionsPerLine * lines;
}

} // namespace

bool readsWithFarStride(const Loop &loop, function_ref<bool(const CallInst &)> isLaunchConstant) {
  return !stridedLoadsOf(loop, ConstantStrides::Far, isLaunchConstant).empty();
}

uint64_t farStrideBytes(const Loop &loop, function_ref<bool(const CallInst &)> isLaunchConstant) {
  uint64_t bytes = 0;
  for (const StridedLoad &load : stridedLoadsOf(loop, ConstantStrides::Far, isLaunchConstant))
    bytes += load.bytes;
  return bytes;
}

unsigned addStridedPrefetches(Function &function) {
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  SmallVector<std::pair<Loop *, StridedLoad>, 8> found;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost())
      continue;
    SmallVector<StridedLoad, kMaxLoadsPerLoop> loads =
        stridedLoadsOf(*loop, ConstantStrides::OnlyInLoopsThatTakeTurns);
    if (waitsOnMemory(*loop, loads))
      for (StridedLoad &load : loads)
        found.push_back({loop, std::move(load)});
  }
  // One counter ahead per counter and step, however many loads follow it.
  DenseMap<std::pair<PHINode *, Value *>, Value *> aheadCounters;
  for (const auto &[loop, load] : found) {
    Value *&ahead = aheadCounters[{load.counter(), load.step}];
    if (ahead == nullptr)
      ahead = counterAhead(load, *loop);
    prefetchAhead(load, ahead, *loop);
  }
  return found.size();
}

} // namespace kiln::cpu
