//===- work_item_vectorizer.cpp - Work-items in the lanes of vectors ------===//
#include "devices/cpu/codegen/vectorizer/work_item_vectorizer.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "devices/cpu/codegen/ir_utilities/computed_address.hpp"
#include "devices/cpu/codegen/memory_paths/strided_prefetch.hpp"
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"
#include "devices/cpu/codegen/vectorizer/code_growth.hpp"
#include "devices/cpu/codegen/vectorizer/control_linearization.hpp"
#include "devices/cpu/codegen/vectorizer/instruction_widening.hpp"
#include "devices/cpu/codegen/vectorizer/interleaved_access.hpp"
#include "devices/cpu/codegen/vectorizer/register_pressure.hpp"
#include "devices/cpu/codegen/vectorizer/uniform_switches.hpp"
#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

using vectorizer::ShapeSeeds;

/// The name of the vectorizer's "some lane is active" placeholder; widening removes its calls.
constexpr const char *kAnyLaneName = "kiln.vectorizer.any_lane";
/// Marks the mask of the SIMD group's active lanes (and, after widening, its vector form).
constexpr const char *kActiveLanesMark = "kiln.vectorizer.active_lanes";

/// Whether `function` calls the work-group barrier.
bool callsBarrier(const Function &function) {
  const Function *barrier = function.getParent()->getFunction("__kiln_work_group_barrier");
  return barrier != nullptr && any_of(barrier->users(), [&](const User *user) {
           const auto *call = dyn_cast<CallBase>(user);
           return call && call->getFunction() == &function;
         });
}

/// One return block for the whole function, so that it can run last.
void mergeReturns(Function &function) {
  SmallVector<ReturnInst *, 4> returns;
  for (BasicBlock &block : function)
    if (auto *ret = dyn_cast<ReturnInst>(block.getTerminator()))
      returns.push_back(ret);
  if (returns.size() <= 1)
    return;
  auto *exit = BasicBlock::Create(function.getContext(), "return", &function);
  ReturnInst::Create(function.getContext(), exit);
  for (ReturnInst *ret : returns) {
    BranchInst::Create(exit, ret->getIterator());
    ret->eraseFromParent();
  }
}

/// The lanes of the SIMD group that are work-items of the work-group, computed at the start of
/// the body as one work-item's "my local id is below the local size": true for every real
/// work-item, false for the lanes past the end.
Value *emitActiveLanes(Function &function, ShapeSeeds seeds) {
  BasicBlock *body = function.getEntryBlock().getSingleSuccessor();
  Module &module = *function.getParent();
  IRBuilder<> builder(body, body->getFirstInsertionPt());
  FunctionCallee localSize =
      module.getOrInsertFunction("__kiln_local_size", builder.getInt64Ty(), builder.getInt32Ty());
  Value *id = builder.CreateCall(seeds.localId, {builder.getInt32(0)}, "lane.local.id");
  Value *size = builder.CreateCall(localSize, {builder.getInt32(0)}, "lane.local.size");
  auto *active = cast<Instruction>(builder.CreateICmpULT(id, size, "lane.active"));
  active->setMetadata(kActiveLanesMark, MDNode::get(function.getContext(), {}));
  return active;
}

/// What decides whether lanes pay for a kernel: its loops and the shapes of its values, computed
/// once for both rules below.
struct ProfitabilityAnalysis {
  DominatorTree tree;
  LoopInfo loops;
  vectorizer::ShapeAnalysis shapes;
  vectorizer::InterleavedGroups interleaved;

  ProfitabilityAnalysis(Function &function, ShapeSeeds seeds)
      : tree(function), loops(tree), shapes(function, seeds), interleaved(function, shapes) {}

  /// Whether a loop that work-items leave after different numbers of iterations reads memory
  /// at addresses with no fixed stride between work-items (a CSR row, a linked list). Such a
  /// loop usually walks consecutive addresses in each work-item, which the scalar loop reads in
  /// order; in lanes those reads become gathers, and lanes whose work-item has finished idle
  /// until the longest one does. Measured on CSR SpMV (rows of 8 to 40 elements): 3.5 times
  /// slower vectorized.
  bool gathersInDivergentLoop() const {
    for (Loop *loop : loops.getLoopsInPreorder()) {
      SmallVector<BasicBlock *, 4> exiting;
      loop->getExitingBlocks(exiting);
      bool divergent = any_of(exiting, [&](BasicBlock *block) {
        auto *branch = dyn_cast<BranchInst>(block->getTerminator());
        return branch && branch->isConditional() &&
               !shapes.shape(branch->getCondition()).isUniform();
      });
      if (!divergent)
        continue;
      for (BasicBlock *block : loop->blocks())
        for (Instruction &instruction : *block)
          if (auto *load = dyn_cast<LoadInst>(&instruction))
            if (shapes.shape(load->getPointerOperand()).isVarying())
              return true;
    }
    return false;
  }

  /// Whether most of the memory traffic would be gathers and scatters: loads and stores at
  /// addresses that are neither the same in every lane nor consecutive elements, and volatile or
  /// atomic ones at addresses that differ between lanes (they run lane by lane), each weighted
  /// by 8 per loop around it. Three kinds of kernel are like that:
  ///  - those that read their addresses from memory (an indirection through an index array);
  ///  - those that keep private arrays or structures that the optimizer could not split into
  ///    registers: each lane has its own copy, one copy after the other, so an access at the
  ///    same offset in every work-item is strided by the copy's size (a random program's private
  ///    structure, initialized field by field, grew 48 times in 16 lanes);
  ///  - those that read and write OpenCL vector types (float4, float16) across work-items: each
  ///    component is a strided access of its own. Whole vectors read or written together take
  ///    vector loads and stores and shuffles instead (interleaved_access.hpp), which pay for
  ///    vectors of up to a quarter of a register (float2 with AVX2, float4 with AVX-512): on
  ///    clpeak's bandwidth kernels with AVX2, float2 reads 1.4 to 1.6 times faster in lanes than
  ///    one work-item at a time, float4 and float8 no faster and float16 0.7 times as fast (the
  ///    shuffles cost more than one work-item's own vector loads save).
  bool mostlyGathersAndScatters(Function &function, unsigned registerBits) const {
    const DataLayout &layout = function.getParent()->getDataLayout();
    uint64_t scattered = 0, regular = 0;
    for (BasicBlock &block : drop_begin(function)) { // after the prologue's parameter reads
      uint64_t weight = uint64_t{1} << (3 * std::min(loops.getLoopDepth(&block), 4u));
      for (Instruction &instruction : block) {
        Value *address = getLoadStorePointerOperand(&instruction);
        if (address == nullptr)
          continue;
        Type *type = getLoadStoreType(&instruction);
        vectorizer::Shape shape = shapes.shape(address);
        bool consecutive =
            shape.isStrided() && shape.stride() == int64_t(layout.getTypeAllocSize(type));
        // Addresses computed from the ids alone get a run-time check that turns them into
        // vector accesses when they are consecutive (contiguous_gather_fast_path.hpp).
        bool maybeConsecutive =
            shape.isVarying() && isComputedWithoutLoads(address, [&](const Value *value) {
              return shapes.shape(value).isVarying();
            });
        const vectorizer::InterleavedGroup *group = interleaved.groupOf(&instruction);
        bool wholeRuns =
            group && group->factor * layout.getTypeStoreSizeInBits(type) * 4 <= registerBits;
        bool simple = isa<LoadInst>(instruction) ? cast<LoadInst>(instruction).isSimple()
                                                 : cast<StoreInst>(instruction).isSimple();
        bool laneByLane = !shape.isUniform() && !simple;
        bool vectorAccess = shape.isUniform() || consecutive || maybeConsecutive || wholeRuns;
        (vectorAccess && !laneByLane ? regular : scattered) += weight;
      }
    }
    return scattered > regular;
  }
};

/// Why `function` runs faster one work-item at a time, or success when lanes pay.
Error checkLanesPay(Function &function, ShapeSeeds seeds, unsigned registerBits) {
  ProfitabilityAnalysis analysis(function, seeds);
  if (analysis.gathersInDivergentLoop())
    return compiler::codegenError(
        "a loop that work-items leave after different numbers of iterations "
        "gathers from memory: each work-item's reads are faster in order");
  if (analysis.mostlyGathersAndScatters(function, registerBits))
    return compiler::codegenError(
        "most memory accesses would be gathers, scatters or lane-by-lane "
        "accesses (addresses computed per work-item, private arrays and "
        "structures, volatile or atomic accesses, the components of vector "
        "types)");
  return Error::success();
}

/// The lanes of the target's preferred vectors of 32-bit elements, at least 4.
unsigned baseWidth(Function &function, TargetMachine &machine) {
  return std::max(4u, vectorRegisterLanes(function, machine));
}

/// How many vector registers the target has.
unsigned vectorRegisterCount(Function &function, TargetMachine &machine) {
  TargetTransformInfo target = machine.getTargetTransformInfo(function);
  return target.getNumberOfRegisters(target.getRegisterClassForType(/*Vector=*/true));
}

/// The 32-bit lanes of the registers that the SIMD group's vectors take. That may be more than
/// the preferred vectors hold: an AVX-512 processor tuned for 256-bit vectors (Intel's Xeons)
/// still gives the vectorizer's 16-lane and wider vectors 512-bit registers.
unsigned occupiedRegisterLanes(Function &function, TargetMachine &machine) {
  TargetTransformInfo target = machine.getTargetTransformInfo(function);
  constexpr unsigned kProbeLanes = 64;
  auto *probe = FixedVectorType::get(Type::getFloatTy(function.getContext()), kProbeLanes);
  unsigned parts = std::max(1u, target.getNumberOfParts(probe));
  return std::max(baseWidth(function, machine), kProbeLanes / parts);
}

/// Whether most of the kernel's arithmetic is on vectors that fill a vector register (float16,
/// or float8 with 256-bit registers). Lanes across work-items would multiply each such value
/// into many registers, which spill; one work-item's operations are already SIMD. What such a
/// kernel lacks is independent work to hide each operation's latency: several work-items
/// interleaved give it. (Kernels with barriers keep the usual path: their work-item loops are
/// not simple nests that can be interleaved.)
bool computesOnFullVectors(Function &function, TargetMachine &machine) {
  if (callsBarrier(function))
    return false;
  uint64_t registerBits = vectorRegisterBits(function, machine);
  const DataLayout &layout = function.getDataLayout();
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  // Weighed by loop depth: the operations that repeat are what the kernel computes.
  uint64_t arithmetic = 0, fullWidth = 0;
  for (BasicBlock &block : function) {
    uint64_t weight = uint64_t{1} << (3 * std::min(loops.getLoopDepth(&block), 4u));
    for (Instruction &instruction : block) {
      bool isFma = vectorizer::isMultiplyAdd(&instruction);
      // Scalar integer arithmetic counts ids, addresses and trips, not data.
      if ((!isa<BinaryOperator>(instruction) && !isFma) || instruction.getType()->isIntegerTy())
        continue;
      arithmetic += weight;
      if (instruction.getType()->isVectorTy() &&
          layout.getTypeSizeInBits(instruction.getType()).getKnownMinValue() >= registerBits)
        fullWidth += weight;
    }
  }
  return arithmetic > 0 && fullWidth * 4 >= arithmetic * 3;
}

/// The most work-items run interleaved (see interleaveWorkItems).
constexpr unsigned kMostInterleavedWorkItems = 8;

/// The most lanes the automatic width takes (KILN_SIMD_WIDTH may force as many), but for some
/// loops that read across pages (widestPageReadingGroup).
constexpr unsigned kWidestSimdGroup = 64;

/// For a kernel whose time goes to chains of dependent arithmetic, how many values the same in
/// every lane its loops broadcast; nothing for other kernels.
///
/// Such a kernel has loops, and none of them touches memory, calls a function or waits for its
/// slowest lane (a divergent loop, which runs until every lane is done). clpeak's compute kernels
/// are like that. Each lane vector of such a kernel is a chain that waits out every operation's
/// latency (4 cycles an FMA), and only more of them in flight, more lanes, keep both FMA pipes
/// busy: 8 vectors in flight, so all 16 AVX2 registers with two values a chain. Other kernels
/// keep a quarter of the registers for what the estimate misses, and at most 4 vectors a value:
/// at 64 lanes, where their values would fit, the CPU suite's prefix scan ran 2.7 and its
/// histogram 2.2 times slower than at 32.
///
/// Each broadcast value (not a constant, not a loop's initial value) takes a vector register of
/// its own: clpeak's chains use none; a multiplier passed as an argument is one, and at the width
/// that fills the registers without it, it spilled.
std::optional<unsigned> broadcastsOfArithmeticLoops(const LoopInfo &loops,
                                                    const vectorizer::ShapeAnalysis &shapes) {
  if (loops.empty())
    return std::nullopt;
  SmallPtrSet<const Value *, 8> broadcasts;
  for (Loop *loop : loops.getLoopsInPreorder())
    for (BasicBlock *block : loop->blocks())
      for (Instruction &instruction : *block) {
        // Calls of anything but intrinsics: the builtins are inlined by now, so these are Kiln's
        // own primitives, __kiln_any_lane among them (the exit test of a divergent loop).
        if (instruction.mayReadOrWriteMemory() ||
            (isa<CallBase>(instruction) && !isa<IntrinsicInst>(instruction)))
          return std::nullopt;
        // A phi's uniform operand is a loop's initial value, broadcast once before it.
        if (!shapes.shape(&instruction).isVarying() || isa<PHINode>(instruction))
          continue;
        for (const Use &operand : instruction.operands())
          if (!isa<Constant>(operand.get()) && !isa<BasicBlock>(operand.get()) &&
              shapes.shape(operand.get()).isUniform() && !operand->getType()->isPointerTy())
            broadcasts.insert(operand.get());
      }
  return static_cast<unsigned>(broadcasts.size());
}

/// Whether `loop` reads with a far stride (known only at run time, or a constant of a few lines),
/// as a grid-stride loop does: each
/// SIMD group reads its own lanes' few lines of a page, then jumps to the next page. The wider
/// the group, the longer the run of each page it reads at once; memory serves long runs much
/// faster than short ones when many cores read at the same time. On the 16-core Xeon of the GPU
/// machine the suite's histogram ran 1.2-1.4x and its reduction up to 1.3x as fast at 64 lanes
/// as at 32 (alternating runs); a C loop reading that way reached 32-65 GB/s at 128 bytes a page
/// and 52-84 at 256, against 108-140 reading each thread's block in order
/// (bench/results/cpu-16core-pocl5.txt).
bool readsAcrossPages(const Loop &loop) {
  return loop.isInnermost() && readsWithFarStride(loop, vectorizer::callsUniformPrimitive);
}

/// Whether `loop` accesses memory lane by lane: at addresses with no stride between the lanes
/// (a histogram's increments of the bins its bytes name).
bool accessesLaneByLane(const Loop &loop, const vectorizer::ShapeAnalysis &shapes) {
  for (BasicBlock *block : loop.blocks())
    for (Instruction &instruction : *block)
      if (std::optional<MemoryLocation> accessed = MemoryLocation::getOrNone(&instruction);
          accessed && !shapes.shape(accessed->Ptr).isStrided())
        return true;
  return false;
}

/// The most lanes for a kernel whose loops read across pages, or nothing when none does.
/// Twice kWidestSimdGroup where the target has mask registers (AVX-512), whose lane masks stay
/// whole in them where AVX2 splits a mask past 32 lanes into pieces, and the loops work on whole
/// vectors: on the 16-core Xeon the suite's reduction ran 1.25x as fast at 128 lanes as at 64
/// (bench/results/cpu-16core-128-lanes.txt), while its histogram, whose increments go lane by
/// lane, ran no faster (h200-and-16core-widths.txt, section 8).
std::optional<unsigned> widestPageReadingGroup(const LoopInfo &loops,
                                               const vectorizer::ShapeAnalysis &shapes,
                                               TargetMachine &machine) {
  bool reads = false, laneByLane = false;
  for (Loop *loop : loops.getLoopsInPreorder())
    if (readsAcrossPages(*loop)) {
      reads = true;
      laneByLane = laneByLane || accessesLaneByLane(*loop, shapes);
    }
  if (!reads)
    return std::nullopt;
  return hasAvx512(machine) && !laneByLane ? kWidestSimdGroup * 2 : kWidestSimdGroup;
}

/// The automatic width (see vectorizeWorkItems) for work-groups `localSizeX` work-items wide.
/// The widest SIMD group the kernel's values leave room for in the vector registers, whatever
/// the local size.
unsigned affordedWidth(Function &function, const vectorizer::ShapeAnalysis &shapes,
                       TargetMachine &machine) {
  unsigned base = baseWidth(function, machine);
  unsigned registers = vectorRegisterCount(function, machine);
  unsigned pressure = std::max(1u, vectorizer::peakVaryingPressure(function, shapes));
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  std::optional<unsigned> broadcasts = broadcastsOfArithmeticLoops(loops, shapes);
  unsigned budget =
      std::max(4u, broadcasts ? registers - std::min(registers, *broadcasts) : registers * 3 / 4);
  std::optional<unsigned> pageReading = widestPageReadingGroup(loops, shapes, machine);
  unsigned limit = broadcasts ? kWidestSimdGroup : pageReading.value_or(base * 4);
  // Each varying 32-bit value takes a register per `registerLanes` lanes, at least one. Loops
  // that only compute are counted in the registers the vectors really take; other kernels in
  // the preferred ones, which keeps them narrower where the estimate misses values: on a Xeon
  // tuned for 256-bit vectors, counting 512-bit registers for every kernel made the suite's
  // work-group prefix scan 31% and its bitonic sort 11% slower (and its tree search 65% faster).
  // Loops that read across pages in whole vectors up to 128 lanes wide are counted in the
  // registers they take too: counted in 256-bit registers, the suite's reduction got 64 lanes
  // on the 16-core Xeon, where it runs 1.25x as fast at 128.
  bool wideVectorReads = pageReading && *pageReading > kWidestSimdGroup;
  unsigned registerLanes =
      broadcasts || wideVectorReads ? occupiedRegisterLanes(function, machine) : base;
  auto registersAt = [&](unsigned width) { return pressure * std::max(1u, width / registerLanes); };
  unsigned widest = base;
  while (widest * 2 <= limit && registersAt(widest * 2) <= budget)
    widest *= 2;
  return widest;
}

unsigned chooseWidth(Function &function, const vectorizer::ShapeAnalysis &shapes,
                     TargetMachine &machine, uint64_t localSizeX) {
  unsigned base = baseWidth(function, machine);
  unsigned widest = affordedWidth(function, shapes, machine);
  // Lanes past the end of the work-group idle: the widest width that divides the group's size
  // leaves none; otherwise no wider than the group (a 16 x 16 tile in 64 lanes would run a
  // quarter full).
  for (unsigned width = widest; width >= base; width /= 2)
    if (localSizeX % width == 0)
      return width;
  return static_cast<unsigned>(std::clamp<uint64_t>(bit_ceil(localSizeX), 2, widest));
}

/// Whether `function`'s loops multiply integer vectors. x86 has no integer multiply-add, so such
/// a chain's step (`x = y * x + y`) takes two instructions, and one more register than its values:
/// the product between them, or the `x + 1` that the optimizer rewrites the step into
/// (`(x + 1) * y`), a constant of its own.
bool multipliesIntegerVectorsInLoops(const LoopInfo &loops) {
  for (Loop *loop : loops.getLoopsInPreorder())
    for (BasicBlock *block : loop->blocks())
      for (Instruction &instruction : *block)
        if (instruction.getOpcode() == Instruction::Mul && instruction.getType()->isVectorTy())
          return true;
  return false;
}

/// How a kernel that computes on whole vector registers runs interleaved (see
/// vectorizeWorkItems): as many work-items as the vector registers hold, at most 8. Each of a
/// work-item's vectors is a chain of dependent operations, and keeping both FMA pipes busy takes
/// 8 chains in flight (4 cycles of latency, 2 pipes); clpeak's float8 with AVX2 holds 2 vectors
/// per work-item (x and y), so 8 work-items fill the 16 registers, where 4 reached half the peak.
/// An integer multiply-add keeps a register free (multipliesIntegerVectorsInLoops): with it,
/// clpeak's int8 runs 7 work-items, not 8, whose 16 values spilled.
///
/// The chains go side by side (chain_interleaving.hpp) only when everything the loops keep in
/// registers fits: the interleaved values, that free register, and each value the loops
/// broadcast. Side by side, every chain's values are live at every step; in the jammed order only
/// one work-item's are busy at a time, and the register allocator spills the others' around it.
/// The suite's compute float16, whose 4 work-items fill the registers and multiply by an
/// argument, ran at half speed side by side.
WorkItemVectorization interleaveWorkItems(Function &function, TargetMachine &machine,
                                          ShapeSeeds seeds) {
  unsigned registers = vectorRegisterCount(function, machine);
  unsigned lanesPerRegister = vectorRegisterLanes(function, machine);
  vectorizer::ShapeAnalysis shapes(function, seeds);
  unsigned pressure = std::max(1u, vectorizer::peakVaryingPressure(function, shapes));
  unsigned registersPerItem = (pressure + lanesPerRegister - 1) / lanesPerRegister;
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  unsigned reserved = multipliesIntegerVectorsInLoops(loops) ? 1 : 0;
  WorkItemVectorization result;
  result.interleave = std::clamp((registers - std::min(registers, reserved)) / registersPerItem, 1u,
                                 kMostInterleavedWorkItems);
  std::optional<unsigned> broadcasts = broadcastsOfArithmeticLoops(loops, shapes);
  result.chainsSideBySide =
      broadcasts && result.interleave * registersPerItem + reserved + *broadcasts <= registers;
  result.notVectorized = "it computes on vectors that fill the vector registers; its work-items "
                         "run interleaved instead, " +
                         std::to_string(result.interleave) + " at a time" +
                         (result.chainsSideBySide ? ", side by side" : "");
  return result;
}

/// A copy of the work-group function, vectorized.
struct VectorizedCopy {
  unsigned width = 1;
  uint64_t instructions = 0; // code_growth.hpp's measure, counting both bodies where there are two
};

Expected<VectorizedCopy> vectorizeCopy(Function &copy, unsigned width, TargetMachine &machine,
                                       ShapeSeeds seeds, uint64_t localSizeX,
                                       uint64_t scalarInstructions) {
  if (copy.getEntryBlock().getSingleSuccessor() == nullptr)
    return compiler::codegenError("internal: the prologue does not lead to one body block");
  EliminateUnreachableBlocks(copy);
  mergeReturns(copy);
  vectorizer::lowerUniformSwitches(copy, vectorizer::ShapeAnalysis(copy, seeds));
  prepareForVectorization(copy, machine);
  unsigned registerBits = vectorRegisterBits(copy, machine);
  bool automatic = width == 0; // a forced width vectorizes whatever it costs
  if (automatic)
    if (Error slower = checkLanesPay(copy, seeds, registerBits))
      return slower;
  Value *activeLanes = emitActiveLanes(copy, seeds);
  Expected<vectorizer::LinearizedControl> control =
      vectorizer::linearizeControlFlow(copy, seeds, activeLanes);
  if (!control)
    return control.takeError();
  vectorizer::ShapeAnalysis shapes(copy, seeds);
  if (automatic)
    width = chooseWidth(copy, shapes, machine, localSizeX);
  // separateFullSimdGroups gives the full SIMD groups a second body.
  uint64_t bodies = localSizeX % width != 0 && !callsBarrier(copy) ? 2 : 1;
  uint64_t budget = vectorizer::vectorizedCodeBudget(scalarInstructions);
  // What surely runs lane by lane already tells a kernel far over the budget, before widening
  // spends time on it.
  uint64_t least = vectorizer::leastVectorizedInstructions(copy, shapes, width) * bodies;
  if (automatic && least > budget)
    return compiler::codegenError(vectorizer::describeOverBudget(least, scalarInstructions, width));
  if (Error error =
          vectorizer::widenInstructions(copy, shapes, *control, seeds, width, registerBits))
    return error;
  std::string problems;
  raw_string_ostream stream(problems);
  if (verifyFunction(copy, &stream))
    return compiler::codegenError("internal: the vectorized code is invalid: " + problems);
  uint64_t instructions = vectorizer::generatedInstructions(copy) * bodies;
  if (automatic && instructions > budget)
    return compiler::codegenError(
        vectorizer::describeOverBudget(instructions, scalarInstructions, width));
  return VectorizedCopy{width, instructions};
}

/// Replaces `function`'s body by `copy`'s and deletes `copy`.
void adoptBody(Function &function, Function &copy) {
  for (unsigned index = 0; index < function.arg_size(); ++index)
    copy.getArg(index)->replaceAllUsesWith(function.getArg(index));
  function.dropAllReferences();
  while (!function.empty())
    function.begin()->eraseFromParent();
  function.splice(function.end(), &copy);
  copy.eraseFromParent();
}

void discard(Function &copy) {
  copy.dropAllReferences();
  copy.eraseFromParent();
}

} // namespace

unsigned vectorRegisterBits(const Function &function, TargetMachine &machine) {
  TargetTransformInfo target = machine.getTargetTransformInfo(function);
  return static_cast<unsigned>(
      target.getRegisterBitWidth(TargetTransformInfo::RGK_FixedWidthVector).getFixedValue());
}

unsigned vectorRegisterLanes(const Function &function, TargetMachine &machine) {
  return std::max(1u, vectorRegisterBits(function, machine) / 32);
}

bool hasAvx512(TargetMachine &machine) {
  return machine.getTargetTriple().isX86() &&
         machine.getMCSubtargetInfo()->checkFeatures("+avx512f");
}

WorkItemVectorization vectorizeWorkItems(Function &function, unsigned width, TargetMachine &machine,
                                         uint64_t localSizeX, bool mayInterleave) {
  WorkItemVectorization result;
  Module &module = *function.getParent();
  LLVMContext &context = module.getContext();
  ShapeSeeds seeds;
  Type *i64 = Type::getInt64Ty(context);
  Type *i32 = Type::getInt32Ty(context);
  Type *i1 = Type::getInt1Ty(context);
  seeds.localId =
      cast<Function>(module.getOrInsertFunction("__kiln_local_id", i64, i32).getCallee());
  seeds.anyLane = cast<Function>(module.getOrInsertFunction(kAnyLaneName, i1, i1).getCallee());
  seeds.anyLane->setDoesNotAccessMemory();
  seeds.barrier = module.getFunction("__kiln_work_group_barrier");

  if (width == 0 && mayInterleave && computesOnFullVectors(function, machine)) {
    result = interleaveWorkItems(function, machine, seeds);
  } else {
    ValueToValueMapTy map;
    Function *copy = CloneFunction(&function, map);
    result.scalarInstructions = vectorizer::generatedInstructions(function);
    if (Expected<VectorizedCopy> vectorized =
            vectorizeCopy(*copy, width, machine, seeds, localSizeX, result.scalarInstructions)) {
      adoptBody(function, *copy);
      result.width = vectorized->width;
      result.vectorInstructions = vectorized->instructions;
    } else {
      result.notVectorized = toString(vectorized.takeError());
      discard(*copy);
    }
  }
  if (seeds.anyLane->use_empty())
    seeds.anyLane->eraseFromParent();
  if (seeds.localId->use_empty())
    seeds.localId->eraseFromParent();
  return result;
}

unsigned preferredSimdWidth(Function &function, TargetMachine &machine) {
  return baseWidth(function, machine);
}

unsigned widestAffordedSimdWidth(Function &function, TargetMachine &machine) {
  Module &module = *function.getParent();
  LLVMContext &context = module.getContext();
  ShapeSeeds seeds;
  seeds.localId =
      cast<Function>(module
                         .getOrInsertFunction("__kiln_local_id", Type::getInt64Ty(context),
                                              Type::getInt32Ty(context))
                         .getCallee());
  seeds.barrier = module.getFunction("__kiln_work_group_barrier");
  unsigned width = affordedWidth(function, vectorizer::ShapeAnalysis(function, seeds), machine);
  if (seeds.localId->use_empty())
    seeds.localId->eraseFromParent();
  return width;
}

void assumeEveryLaneActive(Function &function) {
  SmallVector<Instruction *, 2> masks;
  for (BasicBlock &block : function)
    for (Instruction &instruction : block)
      if (instruction.getMetadata(kActiveLanesMark))
        masks.push_back(&instruction);
  for (Instruction *mask : masks) {
    mask->replaceAllUsesWith(Constant::getAllOnesValue(mask->getType()));
    mask->eraseFromParent();
  }
}

bool isActiveLanesMask(const Value &value) {
  const auto *instruction = dyn_cast<Instruction>(&value);
  return instruction != nullptr && instruction->getMetadata(kActiveLanesMark) != nullptr;
}

void separateFullSimdGroups(Function &function) {
  if (callsBarrier(function))
    return; // each barrier must stay one call that every SIMD group reaches
  Module &module = *function.getParent();
  Type *i64 = Type::getInt64Ty(module.getContext());
  Type *i32 = Type::getInt32Ty(module.getContext());
  FunctionCallee localId = module.getOrInsertFunction("__kiln_local_id", i64, i32);
  FunctionCallee localSize = module.getOrInsertFunction("__kiln_local_size", i64, i32);
  unsigned width = 0;
  for (BasicBlock &block : function)
    for (Instruction &instruction : block)
      if (instruction.getMetadata(kActiveLanesMark))
        if (auto *vector = dyn_cast<FixedVectorType>(instruction.getType()))
          width = vector->getNumElements();
  if (width == 0)
    return;

  // The full copy's body joins the function; its prologue is the function's own.
  BasicBlock *prologue = &function.getEntryBlock();
  BasicBlock *partialBody = prologue->getSingleSuccessor();
  ValueToValueMapTy map;
  Function *full = CloneFunction(&function, map);
  assumeEveryLaneActive(*full);
  for (Instruction &instruction : *prologue)
    if (Value *copy = map.lookup(&instruction))
      copy->replaceAllUsesWith(&instruction);
  for (Argument &argument : function.args())
    map.lookup(&argument)->replaceAllUsesWith(&argument);
  BasicBlock *fullPrologue = &full->getEntryBlock();
  BasicBlock *fullBody = fullPrologue->getSingleSuccessor();
  fullPrologue->eraseFromParent();
  function.splice(function.end(), full);
  full->eraseFromParent();

  // Each SIMD group runs the full body unless it reaches past the work-group's end.
  LLVMContext &context = function.getContext();
  auto *choose = BasicBlock::Create(context, "simd.group", &function, partialBody);
  prologue->getTerminator()->replaceUsesOfWith(partialBody, choose);
  IRBuilder<> builder(choose);
  Value *first = builder.CreateCall(localId, {builder.getInt32(0)}, "simd.group.first");
  Value *size = builder.CreateCall(localSize, {builder.getInt32(0)}, "simd.group.limit");
  Value *isFull =
      builder.CreateICmpULE(builder.CreateAdd(first, builder.getInt64(width)), size, "simd.full");
  builder.CreateCondBr(isFull, fullBody, partialBody);
}

} // namespace kiln::cpu
