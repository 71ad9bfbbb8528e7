//===- pipeline.cpp - The CPU's kernel compiler, step by step -------------===//
#include "devices/cpu/codegen/pipeline.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/device_queries.hpp"
#include "compiler/llvm/image_accessors.hpp"
#include "compiler/llvm/opaque_type_lowering.hpp"
#include "compiler/llvm/sub_group_primitives.hpp"
#include "devices/cpu/codegen/jit/program_modules.hpp"
#include "devices/cpu/codegen/memory_paths/contiguous_gather_fast_path.hpp"
#include "devices/cpu/codegen/memory_paths/full_mask_fast_path.hpp"
#include "devices/cpu/codegen/memory_paths/indirect_prefetch.hpp"
#include "devices/cpu/codegen/memory_paths/streaming_stores.hpp"
#include "devices/cpu/codegen/memory_paths/strided_prefetch.hpp"
#include "devices/cpu/codegen/optimization/chain_interleaving.hpp"
#include "devices/cpu/codegen/optimization/data_bounded_loops.hpp"
#include "devices/cpu/codegen/optimization/float_round_trips.hpp"
#include "devices/cpu/codegen/optimization/lane_division.hpp"
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"
#include "devices/cpu/codegen/optimization/reciprocal_division.hpp"
#include "devices/cpu/codegen/optimization/uniform_division.hpp"
#include "devices/cpu/codegen/preparation/address_space_queries.hpp"
#include "devices/cpu/codegen/preparation/division_guard.hpp"
#include "devices/cpu/codegen/preparation/local_atomics.hpp"
#include "devices/cpu/codegen/preparation/module_preparation.hpp"
#include "devices/cpu/codegen/vectorizer/vectorizer_settings.hpp"
#include "devices/cpu/codegen/vectorizer/work_item_vectorizer.hpp"
#include "devices/cpu/codegen/work_group/grid_stride_turns.hpp"
#include "devices/cpu/codegen/work_group/image_format_constants.hpp"
#include "devices/cpu/codegen/work_group/spin_loop_yields.hpp"
#include "devices/cpu/codegen/work_group/sub_group_emulation.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace kiln::cpu {

namespace {

Expected<unsigned> chooseSubGroupWidth(const compiler::KernelInfo &kernel,
                                       unsigned requestedSimdWidth,
                                       function_ref<unsigned()> vectorizerChoice) {
  if (uint32_t required = kernel.requiredSubGroupSize) {
    if (llvm::is_contained(kSubGroupSizes, required))
      return required;
    std::string offered;
    for (uint32_t size : kSubGroupSizes)
      offered += (offered.empty() ? "" : ", ") + std::to_string(size);
    return compiler::codegenError(
        "kernel '" + kernel.name + "' requires sub-groups of " + std::to_string(required) +
        " work-items (intel_reqd_sub_group_size); this device offers " + offered);
  }
  if (requestedSimdWidth == 1)
    return 1u;
  // SIMD groups may be wider than the widest sub-group (a kernel that reads across pages, on
  // AVX-512): each then holds several whole sub-groups.
  unsigned width = requestedSimdWidth != 0 ? requestedSimdWidth : vectorizerChoice();
  return std::min(width, kSubGroupSizes.back());
}

/// The widest sub-group `function`'s values leave room for in the vector registers. The
/// library's sub-group functions branch on the sub-group's width, still unknown here, so an
/// estimate of the function as it is counts the values of every width's branch: the suite's
/// sub-group reduction counted 6 live values where 3 are, and got 16 lanes on AVX2 where the
/// same sum through local memory got 32 (at 32 lanes it ran 1.5x as fast). Each wider width is
/// tried on a copy specialized to it, as its work-group functions will be compiled; only for
/// a kernel whose sub-groups exchange values (`crossesLanes`), the others' widths take no
/// exchanges. (A width past the widest sub-group is cut to it by chooseSubGroupWidth.)
unsigned widestAffordedSubGroupWidth(Function &function, TargetMachine &machine,
                                     bool crossesLanes) {
  unsigned unspecialized = widestAffordedSimdWidth(function, machine);
  if (!crossesLanes)
    return unspecialized;
  for (auto width = kSubGroupSizes.rbegin(); width != kSubGroupSizes.rend(); ++width) {
    if (*width <= unspecialized)
      break;
    ValueToValueMapTy map;
    Function *copy = CloneFunction(&function, map);
    substituteSubGroupWidth(*copy, *width);
    simplifyKernelBody(*copy, machine);
    foldShapeConstants(*copy);
    unsigned afforded = widestAffordedSimdWidth(*copy, machine);
    copy->eraseFromParent();
    if (afforded >= *width)
      return *width;
  }
  return unspecialized;
}

} // namespace

Error prepareProgram(Module &module, const compiler::ProgramInfo &info, TargetMachine &machine,
                     bool optimize, PreparedProgram &prepared) {
  // 1. OpenCL's opaque types (images, samplers, events, ...) as plain pointers.
  if (Error error = compiler::lowerOpaqueTypes(module))
    return error;
  // 2. What image and sampler values are: an image the address of its descriptor, a sampler
  //    its bits; the builtin library's texture reads, which need texture units, are dropped, and
  //    so are its one-instruction sub-group reductions (a GPU's), leaving its shuffle trees, and
  //    its pipe reservations per sub-group (pipes.cl; whether each lane reserves the position
  //    its rank names is answered per shape, step 14), and it starts no enqueued kernel itself
  //    (the records' host code starts them: runtime/scheduling/device_enqueue.hpp); it clamps
  //    its float-to-integer conversions in software, which the vectorizer widens.
  compiler::resolveImageAccessors(module, /*textureHardware=*/false);
  compiler::answerNativeReductionQuery(module, /*available=*/false);
  compiler::answerDeviceQuery(module, compiler::kPipesReservePerSubGroupQuery, false);
  compiler::answerDeviceQuery(module, compiler::kLaunchesOnDeviceQuery, false);
  compiler::answerDeviceQuery(module, compiler::kEnqueueConstantsInLaunchQuery, false);
  compiler::answerDeviceQuery(module, compiler::kConvertsSaturatingNativelyQuery, false);
  // 3. The module retargeted from SPIR64 to the host: triple and data layout, the C calling
  //    convention, every function but the kernels marked for inlining (a work-group function
  //    needs every barrier in one body); inline assembly refused (it is another device's).
  retargetModuleToHost(module, machine.getTargetTriple(), machine.createDataLayout());
  if (Error error = rejectInlineAssembly(module))
    return error;
  // 4. Integer divisions that cannot trap (OpenCL leaves x/0 undefined; x86 raises SIGFPE).
  guardIntegerDivisions(module);
  VectorizerSettings vectorizer = VectorizerSettings::fromEnvironment();
  prepared.optimize = optimize;
  prepared.requestedSimdWidth = optimize && vectorizer.enabled ? vectorizer.width : 1;
  prepared.reportVectorization = vectorizer.report;
  prepared.preferredMultiples.clear();
  prepared.subGroupWidths.clear();
  SmallPtrSet<Function *, 8> functions;
  for (const compiler::KernelInfo &kernel : info.kernels) {
    // 5. Each kernel as a work-group function (work_group/work_group_function.hpp), named
    //    workGroupFunctionName(): a prologue that reads the arguments from the argument block,
    //    then a call of the kernel.
    Expected<WorkGroupShell> shell = createWorkGroupFunction(module, kernel);
    if (!shell)
      return shell.takeError();
    Function *function = shell->function;
    // 6. The kernel and everything it calls inlined into it.
    if (Error error = inlineKernel(*function))
      return error;
    // 7. Its __local variables placed in the work-group's local memory, and after the launch's
    //    local memory the work-group collectives' scratch.
    if (Error error = placeLocalVariables(module, *shell, kernel))
      return error;
    placeWorkGroupScratch(module, *shell);
    // 8. Private variables promoted to registers and the body cleaned up, control flow left
    //    alone so that no barrier is duplicated or merged (optimization/pass_pipelines.hpp).
    simplifyKernelBody(*function, machine);
    // 9. Address-space queries folded where the pointer's origin is now clear: the values the
    //    front end keeps in stack slots are in registers, and the program's casts to the
    //    generic space are not yet merged with the code generator's own (only O3 does that).
    foldAddressSpaceQueries(*function);
    // 10. Atomics on local memory marked: the work-items of a group run on one thread, so
    //     after vectorization they become plain accesses.
    markLocalAtomics(*function);
    functions.insert(function);
    // 11. The work-group size multiple the kernel prefers: the lanes it would be vectorized in.
    uint32_t multiple = prepared.requestedSimdWidth;
    if (multiple == 0)
      multiple = preferredSimdWidth(*function, machine);
    else if (multiple == 1) // LLVM's loop vectorizer runs the work-item loops in these lanes
      multiple = optimize ? vectorRegisterLanes(*function, machine) : 1;
    //     And its sub-group width: the one it requires, else the widest SIMD group its values
    //     leave room for (one work-item when the vectorizer is off).
    bool crossesLanes = compiler::crossesSubGroupLanes(*function);
    Expected<unsigned> subGroupWidth =
        chooseSubGroupWidth(kernel, prepared.requestedSimdWidth, [&] {
          return widestAffordedSubGroupWidth(*function, machine, crossesLanes);
        });
    if (!subGroupWidth)
      return subGroupWidth.takeError();
    prepared.subGroupWidths.push_back(*subGroupWidth);
    //     A kernel whose sub-groups exchange values runs one sub-group a SIMD group (step 15).
    if (*subGroupWidth > 1 && crossesLanes)
      multiple = *subGroupWidth;
    prepared.preferredMultiples.push_back(multiple);
  }
  // 12. Only the work-group functions and the program's variables are kept.
  keepOnlyWorkGroupFunctions(module, functions);
  return Error::success();
}

namespace {

/// Whether the work-groups' rows along dimension 0 are whole sub-groups, so that each SIMD
/// group of `width` lanes is one sub-group (the last of a one-dimensional group may be partial).
bool rowsSplitIntoSubGroups(const WorkGroupShape &shape, unsigned width) {
  return shape.localSize[1] * shape.localSize[2] == 1 || shape.localSize[0] % width == 0;
}

} // namespace

Expected<ShapeCompilation> compileForShape(const PreparedProgram &prepared,
                                           const std::string &kernel, unsigned subGroupWidth,
                                           const WorkGroupShape &shape, const std::string &symbol,
                                           const std::string &moduleIdentifier,
                                           TargetMachine &machine) {
  // Steps 13 to 25, on a fresh copy of the prepared module; run again without interleaving
  // when the optimizer could not interleave, and with pipe reservations that ignore the lanes
  // when the kernel could not run its sub-groups in them.
  bool pipesByLaneRank = subGroupWidth > 1 && rowsSplitIntoSubGroups(shape, subGroupWidth);
  auto specializeAndOptimize = [&](bool mayInterleave) -> Expected<ShapeCompilation> {
    ShapeCompilation result;
    result.context = std::make_unique<LLVMContext>();
    result.diagnostics = compiler::makeDiagnosticsQuiet(*result.context);
    Expected<std::unique_ptr<Module>> module = parseModule(prepared.module, *result.context);
    if (!module)
      return module.takeError();
    result.module = std::move(*module);
    Function *function = result.module->getFunction(workGroupFunctionName(kernel));
    if (function == nullptr || function->isDeclaration())
      return compiler::codegenError("internal error: kernel '" + kernel + "' was not prepared");
    // 13. The kernel's work-group function alone in the module.
    isolateWorkGroupFunction(*result.module, *function);
    // 14. The shape's local sizes (and a zero global offset) as constants, and the kernel's
    //     sub-group width.
    substituteShapeConstants(*result.module, *function, shape);
    substituteSubGroupWidth(*function, subGroupWidth);
    //     The formats of the launch's images, so that each image access folds to its format's
    //     path (work_group/image_format_constants.hpp).
    substituteImageFormats(*function, shape.imageFormats);
    foldShapeConstants(*function);
    //     The lanes of a SIMD group that read or write a pipe together each reserve the
    //     position their rank names (pipes.cl): lanes in step that each reserved at the counter
    //     would all compete for one position, one winning a round. That takes ballots in
    //     divergent code, which only lanes run: the emulation below needs the whole group.
    result.pipesByLaneRank =
        pipesByLaneRank &&
        compiler::asksDeviceQuery(*result.module, compiler::kPipesReserveByLaneRankQuery);
    compiler::answerDeviceQuery(*result.module, compiler::kPipesReserveByLaneRankQuery,
                                result.pipesByLaneRank);
    // A kernel whose sub-groups exchange values runs them in the vectorizer's lanes where each
    // SIMD group is one sub-group, even with the vectorizer off (then only a required size makes
    // sub-groups wider than one work-item): the lanes are what gives the non-uniform functions
    // their meaning under divergent control flow. Where the rows do not split into whole
    // sub-groups, or the kernel cannot be vectorized, the work-items run one at a time with
    // their exchanges emulated (work_group/sub_group_emulation.hpp).
    bool crossesLanes = subGroupWidth > 1 && compiler::crossesSubGroupLanes(*function);
    bool subGroupsInLanes = crossesLanes && rowsSplitIntoSubGroups(shape, subGroupWidth);
    //     A kernel that may wait for another sub-group (work_group/spin_loop_yields.hpp) runs
    //     no more than one sub-group in a SIMD group, whose lanes run in step.
    bool waitsForSubGroups = markWaitingReads(*function);
    if (!subGroupsInLanes)
      if (Error error = lowerSubGroupPrimitives(*function, subGroupWidth, shape))
        return error;
    // 15. Work-items side by side in the lanes of vectors, where it pays
    //     (vectorizer/work_item_vectorizer.hpp), or else asked to run interleaved.
    SpecializedWorkGroup specialized;
    specialized.function = function;
    unsigned simdWidth = prepared.requestedSimdWidth;
    if (crossesLanes)
      simdWidth = subGroupsInLanes ? subGroupWidth : 1;
    else if (waitsForSubGroups && simdWidth != 1)
      simdWidth = rowsSplitIntoSubGroups(shape, subGroupWidth) ? subGroupWidth : 1;
    if (simdWidth == 0 && shape.localSize[0] == 1) {
      simdWidth = 1; // no work-items side by side along dimension 0
      specialized.notVectorized = "the work-groups are one work-item wide along dimension 0";
    }
    if (simdWidth != 1) {
      WorkItemVectorization vectorized =
          vectorizeWorkItems(*function, simdWidth, machine, shape.localSize[0], mayInterleave);
      specialized.simdWidth = vectorized.width;
      specialized.interleave = vectorized.interleave;
      specialized.chainsSideBySide = vectorized.chainsSideBySide;
      specialized.notVectorized = std::move(vectorized.notVectorized);
      specialized.scalarInstructions = vectorized.scalarInstructions;
      specialized.vectorInstructions = vectorized.vectorInstructions;
    }
    if (subGroupsInLanes) // what the vectorizer left: the sub-group id, or all if it could not
      if (Error error = lowerSubGroupPrimitives(*function, subGroupWidth, shape))
        return error;
    // 16. SIMD groups known to be full lose their lane masks; otherwise the full ones are
    //     separated from the last.
    if (specialized.simdWidth > 1) {
      if (shape.localSize[0] % specialized.simdWidth == 0)
        assumeEveryLaneActive(*function); // every SIMD group is full
      else
        separateFullSimdGroups(*function);
    }
    // 17. The shape's constants again: vectorization asks for the local size to mask the lanes
    //     past the group's end.
    substituteShapeConstants(*result.module, *function, shape);
    //     Loops that may wait for another sub-group of the work-group (a flag, a lock) end
    //     each round with a yield, where the work-item loops (step 19) run the other
    //     sub-groups: they make independent forward progress (work_group/spin_loop_yields.hpp).
    //     Found while atomics are still atomic.
    if (waitsForSubGroups)
      result.waitingLoops = insertSpinLoopYields(*function);
    //     Grid-stride loops take turns, so that a worker's SIMD groups and neighbouring
    //     work-groups read each stretch of their pages together
    //     (work_group/grid_stride_turns.hpp).
    GridStrideTurns turns = insertGridStrideTurns(
        *function, shape.localSize[0] * shape.localSize[1] * shape.localSize[2],
        specialized.simdWidth);
    result.turnLoops = turns.loops;
    specialized.groupsInStep = turns.groupsInStep;
    // 18. Local atomics as plain accesses (see step 10).
    makeLocalAtomicsPlain(*function);
    // 19. Loops over the work-items, split at barriers; values live across a barrier kept per
    //     work-item in private storage or recomputed (work_group/barrier_regions.hpp).
    WorkGroupPrologue prologue = loadPrivateMemory(*function);
    specialized.privateBytesPerSimdGroup = turnIntoWorkItemLoops(
        *result.module, *function, prologue, shape, specialized.simdWidth, specialized.interleave);
    // 20. The group primitives, printf's buffer and the address-space queries read from the
    //     launch's and the group's parameters.
    replaceGroupPrimitives(*result.module, *function);
    replacePrintfReservations(*result.module, *function);
    resolveAddressSpaceQueries(*function, prologue);
    function->setName(symbol);
    result.module->setModuleIdentifier(moduleIdentifier);
    // 21. Checked: what follows assumes valid IR.
    if (std::string problems; verifyModuleText(*result.module, problems))
      return compiler::codegenError("internal error: invalid work-group code: " + problems);
    // 22. A division by a divisor the same for the whole group gets a branch on "it is a power
    //     of two", whose side is a shift or a mask; after the vectorizer, so that the branch
    //     stays scalar and the optimizer moves it out of the work-item loops.
    specializePowerOfTwoDivisions(*function);
    //     And a division of lanes by one divisor (the other side of that branch, or a divisor
    //     the SIMD group shares) becomes a multiplication (optimization/lane_division.hpp).
    multiplyLanesByReciprocals(*function);
    // 23. Loops whose trip count depends on data stay rolled (no run-time unrolling).
    if (prepared.optimize)
      keepDataBoundedLoopsRolled(*function);
    // 24. The whole-module optimization (O3; with unroll-and-jam when work-items are to run
    //     interleaved).
    result.interleaved =
        optimizeModule(*result.module, machine, prepared.optimize, specialized.interleave > 1);
    // 25. The jam leaves each work-item's steps after the other's: their independent chains go
    //     side by side (optimization/chain_interleaving.hpp).
    if (result.interleaved && specialized.chainsSideBySide)
      interleaveIndependentChains(*function);
    result.function = function;
    result.specialized = std::move(specialized);
    return result;
  };
  Expected<ShapeCompilation> built = specializeAndOptimize(/*mayInterleave=*/true);
  if (pipesByLaneRank &&
      (!built || (built->pipesByLaneRank && built->specialized.simdWidth != subGroupWidth))) {
    if (!built)
      consumeError(built.takeError());
    pipesByLaneRank = false;
    built = specializeAndOptimize(/*mayInterleave=*/true);
  }
  // Interleaving pays only where the optimizer could do it; otherwise the SIMD groups do better.
  if (built && built->specialized.interleave > 1 && !built->interleaved)
    built = specializeAndOptimize(/*mayInterleave=*/false);
  if (!built)
    return built.takeError();
  Function &function = *built->function;
  // 26. Gathers and scatters that turn out consecutive, or every lane active, at run time take
  //     plain vector loads and stores (memory_paths/).
  if (prepared.optimize && built->specialized.simdWidth > 1) {
    addContiguousGatherFastPaths(function, hasAvx512(machine));
    addFullMaskFastPaths(function);
  }
  // 27. Indexed and strided loads prefetched ahead.
  if (prepared.optimize) {
    built->indirectPrefetches = addIndirectPrefetches(function, shape.buffersHaveReadSlack);
    built->stridedPrefetches = addStridedPrefetches(function);
  }
  // 28. Whole-vector stores of a launch with a large output bypass the caches.
  if (prepared.optimize && shape.streamingStores && machine.getTargetTriple().isX86() &&
      mayStreamStores(function))
    built->streamingStores = addStreamingStores(function);
  // 29. Float computations on small integers that come back to integers (a normalized channel
  //     scaled back to a byte) as the integer arithmetic they amount to for every input
  //     (optimization/float_round_trips.hpp); then the float divisions of small integers by
  //     constants that are left as the reciprocal's product and a correction, exact for each
  //     dividend they can have (optimization/reciprocal_division.hpp), where the host fuses
  //     multiply-adds.
  if (prepared.optimize)
    built->floatRoundTrips = foldFloatRoundTripsOfSmallIntegers(function);
  if (prepared.optimize && machine.getMCSubtargetInfo()->checkFeatures("+fma"))
    built->reciprocalDivisions = divideSmallIntegersByReciprocal(function);
  // 30. Then ORC's code generator, at the JIT's first lookup of `symbol`.
  return built;
}

} // namespace kiln::cpu
