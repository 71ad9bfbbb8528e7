//===- pipeline.cpp - The CPU's kernel compiler, step by step -------------===//
#include "devices/cpu/codegen/pipeline.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/image_accessors.hpp"
#include "compiler/llvm/opaque_type_lowering.hpp"
#include "devices/cpu/codegen/jit/program_modules.hpp"
#include "devices/cpu/codegen/memory_paths/contiguous_gather_fast_path.hpp"
#include "devices/cpu/codegen/memory_paths/full_mask_fast_path.hpp"
#include "devices/cpu/codegen/memory_paths/indirect_prefetch.hpp"
#include "devices/cpu/codegen/memory_paths/streaming_stores.hpp"
#include "devices/cpu/codegen/memory_paths/strided_prefetch.hpp"
#include "devices/cpu/codegen/optimization/chain_interleaving.hpp"
#include "devices/cpu/codegen/optimization/data_bounded_loops.hpp"
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"
#include "devices/cpu/codegen/optimization/uniform_division.hpp"
#include "devices/cpu/codegen/preparation/division_guard.hpp"
#include "devices/cpu/codegen/preparation/module_preparation.hpp"
#include "devices/cpu/codegen/vectorizer/vectorizer_settings.hpp"
#include "devices/cpu/codegen/vectorizer/work_item_vectorizer.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/MC/MCSubtargetInfo.h"

using namespace llvm;

namespace kiln::cpu {

Error prepareProgram(Module &module, const compiler::ProgramInfo &info, TargetMachine &machine,
                     bool optimize, PreparedProgram &prepared) {
  // 1. OpenCL's opaque types (events, samplers, images, queues) as the pointers and integers
  //    the builtins take.
  if (Error error = compiler::lowerOpaqueTypes(module))
    return error;
  // 2. Image reads and writes bound to the software accessors (the CPU has no texture units).
  compiler::resolveImageAccessors(module, /*textureHardware=*/false);
  // 3. The module retargeted from SPIR64 to the host: triple, data layout, calling
  //    conventions, the C library's functions under their host names.
  retargetModuleToHost(module, machine.getTargetTriple(), machine.createDataLayout());
  // 4. Integer divisions that cannot trap (OpenCL leaves x/0 undefined; x86 raises SIGFPE).
  guardIntegerDivisions(module);
  VectorizerSettings vectorizer = VectorizerSettings::fromEnvironment();
  prepared.optimize = optimize;
  prepared.requestedSimdWidth = optimize && vectorizer.enabled ? vectorizer.width : 1;
  prepared.reportVectorization = vectorizer.report;
  prepared.preferredMultiples.clear();
  SmallPtrSet<Function *, 8> functions;
  for (const compiler::KernelInfo &kernel : info.kernels) {
    // 5. Each kernel as a work-group function (work_group/work_group_function.hpp): a prologue
    //    that reads the arguments from the argument block, the kernel fully inlined, its
    //    __local variables placed in the work-group's local memory, the body simplified
    //    (pass_pipelines.hpp: simplifyKernelBody), address-space queries folded where the
    //    pointer's origin is known, atomics on local memory marked.
    Expected<Function *> function = prepareWorkGroupFunction(module, kernel, machine);
    if (!function)
      return function.takeError();
    functions.insert(*function);
    // 6. The work-group size multiple the kernel prefers: the lanes it would be vectorized in.
    uint32_t multiple = prepared.requestedSimdWidth;
    if (multiple == 0)
      multiple = preferredSimdWidth(**function, machine);
    else if (multiple == 1) // LLVM's loop vectorizer runs the work-item loops in these lanes
      multiple = optimize ? vectorRegisterLanes(**function, machine) : 1;
    prepared.preferredMultiples.push_back(multiple);
  }
  // 7. Only the work-group functions and the program's variables are kept.
  keepOnlyWorkGroupFunctions(module, functions);
  return Error::success();
}

namespace {

/// Whether the target has AVX-512's permutes, compresses and expands of 32-bit lanes
/// (windowed_gather_fast_path.hpp).
bool hasAvx512(TargetMachine &machine) {
  return machine.getTargetTriple().isX86() &&
         machine.getMCSubtargetInfo()->checkFeatures("+avx512f");
}

} // namespace

Expected<ShapeCompilation> compileForShape(const PreparedProgram &prepared,
                                           const std::string &kernel, const WorkGroupShape &shape,
                                           const std::string &symbol,
                                           const std::string &moduleIdentifier,
                                           TargetMachine &machine) {
  // Steps 8 to 15, on a fresh copy of the prepared module; run again without interleaving
  // when the optimizer could not interleave.
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
    // 8. The kernel's work-group function alone in the module.
    isolateWorkGroupFunction(*result.module, *function);
    // 9. Specialized on the shape (work_group/work_group_function.hpp): the local sizes and
    //    offsets become constants; the work-item vectorizer runs work-items side by side in
    //    the lanes of vectors where it pays (vectorizer/); SIMD groups known full lose their
    //    masks, or full ones are separated from the last; the body becomes loops over the
    //    work-items, split at barriers; the group primitives, printf's buffer and the
    //    address-space queries become reads of the launch's and the group's parameters.
    Expected<SpecializedWorkGroup> specialized = specializeWorkGroupFunction(
        *function, shape, machine, prepared.requestedSimdWidth, mayInterleave);
    if (!specialized)
      return specialized.takeError();
    function->setName(symbol);
    result.module->setModuleIdentifier(moduleIdentifier);
    // 10. Checked: what follows assumes valid IR.
    if (std::string problems; verifyModuleText(*result.module, problems))
      return compiler::codegenError("internal error: invalid work-group code: " + problems);
    // 11. Divisions by a power of two known only at run time become shifts and masks.
    specializePowerOfTwoDivisions(*function);
    // 12. Loops whose trip count depends on data stay rolled (no run-time unrolling).
    if (prepared.optimize)
      keepDataBoundedLoopsRolled(*function);
    // 13. The whole-module optimization (O3; with unroll-and-jam when work-items are to run
    //     interleaved).
    result.interleaved =
        optimizeModule(*result.module, machine, prepared.optimize, specialized->interleave > 1);
    // 14. The jam leaves each work-item's steps after the other's: their independent chains go
    //     side by side (optimization/chain_interleaving.hpp).
    if (result.interleaved && specialized->chainsSideBySide)
      interleaveIndependentChains(*function);
    result.function = function;
    result.specialized = std::move(*specialized);
    return result;
  };
  Expected<ShapeCompilation> built = specializeAndOptimize(/*mayInterleave=*/true);
  // Interleaving pays only where the optimizer could do it; otherwise the SIMD groups do better.
  if (built && built->specialized.interleave > 1 && !built->interleaved)
    built = specializeAndOptimize(/*mayInterleave=*/false);
  if (!built)
    return built.takeError();
  Function &function = *built->function;
  // 15. Gathers and scatters that turn out consecutive, or every lane active, at run time take
  //     plain vector loads and stores (memory_paths/).
  if (prepared.optimize && built->specialized.simdWidth > 1) {
    addContiguousGatherFastPaths(function, hasAvx512(machine));
    addFullMaskFastPaths(function);
  }
  // 16. Indexed and strided loads prefetched ahead.
  if (prepared.optimize) {
    built->indirectPrefetches = addIndirectPrefetches(function, shape.buffersHaveReadSlack);
    built->stridedPrefetches = addStridedPrefetches(function);
  }
  // 17. Whole-vector stores of a launch with a large output bypass the caches.
  if (prepared.optimize && shape.streamingStores && machine.getTargetTriple().isX86() &&
      mayStreamStores(function))
    built->streamingStores = addStreamingStores(function);
  // 18. Then ORC's code generator, at the JIT's first lookup of `symbol`.
  return built;
}

} // namespace kiln::cpu
