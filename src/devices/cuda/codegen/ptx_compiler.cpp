//===- ptx_compiler.cpp - Linked programs to PTX -------------------------===//
//
// The steps, in order: OpenCL's opaque types become pointers; SPIR's address spaces become
// NVPTX's; each kernel gets its PTX entry, each block kernel a second one through which the GPU
// starts it itself, and the block kernels' limits a table of the module; everything is inlined
// into the entries (but the library's software image paths where a kernel calls them often),
// whose primitives then read CUDA's registers; atomics on private memory become plain accesses;
// float division and rsqrt use PTX's fast forms where OpenCL's accuracy allows;
// libdevice provides the math; O3 (or only clean-up for
// -cl-opt-disable), then small loops of texture reads copied per image format choice and small
// counted loops unrolled; the library's saturating float-to-integer conversions become PTX's
// cvt; NVPTX's code generator writes PTX.
//
//===----------------------------------------------------------------------===//
#include "devices/cuda/codegen/ptx_compiler.hpp"

#include "compiler/llvm/bitcode_io.hpp"
#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/device_queries.hpp"
#include "compiler/llvm/fatal_error_guard.hpp"
#include "compiler/llvm/image_accessors.hpp"
#include "compiler/llvm/opaque_type_lowering.hpp"
#include "compiler/llvm/pass_analyses.hpp"
#include "compiler/llvm/quiet_diagnostics.hpp"
#include "compiler/llvm/sub_group_primitives.hpp"
#include "devices/cuda/codegen/address_space_mapping.hpp"
#include "devices/cuda/codegen/asm_register_classes.hpp"
#include "devices/cuda/codegen/atomic_scopes.hpp"
#include "devices/cuda/codegen/block_kernel_limits.hpp"
#include "devices/cuda/codegen/device_launches.hpp"
#include "devices/cuda/codegen/fast_float_math.hpp"
#include "devices/cuda/codegen/kernel_entry.hpp"
#include "devices/cuda/codegen/libdevice_math.hpp"
#include "devices/cuda/codegen/loop_unrolling.hpp"
#include "devices/cuda/codegen/private_atomics.hpp"
#include "devices/cuda/codegen/saturating_conversions.hpp"
#include "devices/cuda/codegen/texture_loop_versioning.hpp"
#include "devices/cuda/codegen/texture_reads.hpp"

#include "support/settings.hpp"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"

#include <cstdlib>
#include <mutex>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

using namespace llvm;

namespace kiln::cuda {
namespace {

constexpr const char *kNvptxTriple = "nvptx64-nvidia-cuda";

void initializeNvptxTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// PTX 8.7 (CUDA 12.8) covers every architecture up to sm_120 and is what LLVM 22 writes for
/// them; older architectures take the lowest version LLVM chooses itself.
Expected<std::unique_ptr<TargetMachine>> createTargetMachine(unsigned smVersion) {
  initializeNvptxTarget();
  Triple triple(kNvptxTriple);
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr)
    return compiler::codegenError("the NVPTX code generator is missing: " + error);
  TargetOptions options;
  std::unique_ptr<TargetMachine> machine(
      target->createTargetMachine(triple, "sm_" + std::to_string(smVersion), "", options,
                                  std::nullopt, std::nullopt, CodeGenOptLevel::Aggressive));
  if (!machine)
    return compiler::codegenError("no NVPTX code generator for sm_" + Twine(smVersion));
  return machine;
}

void inlineIntoEntries(Module &module, TargetMachine &machine) {
  PassBuilder builder(&machine);
  compiler::PassAnalyses analyses(builder);
  ModulePassManager passes;
  passes.addPass(AlwaysInlinerPass());
  passes.addPass(GlobalDCEPass());
  passes.run(module, analyses.modules);
}

void optimize(Module &module, TargetMachine &machine, bool optimize) {
  PassBuilder builder(&machine);
  // A branch costs a GPU more than a few speculated instructions (warps diverge and reconverge
  // at every one): let SimplifyCFG merge conditions that need up to three instructions each, so
  // a loop such as `while (i < n && x * x + y * y <= 4)` keeps one exit, as NVIDIA's compiler
  // makes it. At the start of the pipeline: once loop rotation has given a loop its shape, the
  // conditions sit in different blocks.
  builder.registerPipelineStartEPCallback([](ModulePassManager &passes, OptimizationLevel) {
    FunctionPassManager functions;
    functions.addPass(SROAPass(SROAOptions::ModifyCFG));
    functions.addPass(EarlyCSEPass());
    functions.addPass(SimplifyCFGPass(SimplifyCFGOptions().bonusInstThreshold(3)));
    markPipelineUnrolls(functions);
    passes.addPass(createModuleToFunctionPassAdaptor(std::move(functions)));
  });
  compiler::PassAnalyses analyses(builder);
  ModulePassManager passes = optimize ? builder.buildPerModuleDefaultPipeline(OptimizationLevel::O3)
                                      : builder.buildO0DefaultPipeline(OptimizationLevel::O0);
  passes.run(module, analyses.modules);
}

Expected<std::string> emitPtx(Module &module, TargetMachine &machine) {
  SmallString<0> ptx;
  raw_svector_ostream stream(ptx);
  legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, CodeGenFileType::AssemblyFile))
    return compiler::codegenError("the NVPTX code generator cannot write PTX");
  passes.run(module);
  return std::string(ptx.str());
}

Expected<std::string> compileModule(const compiler::Bitcode &bitcode,
                                    const compiler::ProgramInfo &info, unsigned smVersion,
                                    bool optimizeCode) {
  LLVMContext context;
  std::shared_ptr<const compiler::DiagnosedErrors> diagnostics =
      compiler::makeDiagnosticsQuiet(context);
  Expected<std::unique_ptr<Module>> module =
      compiler::readModule(bitcode, context, "the program's module");
  if (!module)
    return module.takeError();
  Expected<std::unique_ptr<TargetMachine>> machine = createTargetMachine(smVersion);
  if (!machine)
    return machine.takeError();

  if (Error error = compiler::lowerOpaqueTypes(**module))
    return error;
  compiler::resolveImageAccessors(**module, /*textureHardware=*/true);
  compiler::answerNativeReductionQuery(**module, /*available=*/smVersion >= 80);
  compiler::answerDeviceQuery(**module, compiler::kPipesReservePerSubGroupQuery, true);
  compiler::answerDeviceQuery(**module, compiler::kPipesReserveByLaneRankQuery, false);
  compiler::answerDeviceQuery(**module, compiler::kLaunchesOnDeviceQuery, launchesOnDevice());
  compiler::answerDeviceQuery(**module, compiler::kEnqueueConstantsInLaunchQuery, true);
  compiler::answerDeviceQuery(**module, compiler::kConvertsSaturatingNativelyQuery, true);
  compiler::deleteMarks(**module, compiler::kRetriesWithoutWaitingMark); // warps need no yields
  if (Error error = mapAddressSpacesToNvptx(**module))
    return error;
  (*module)->setTargetTriple(Triple(kNvptxTriple));
  (*module)->setDataLayout((*machine)->createDataLayout());
  choosePtxRegisterClasses(**module);
  if (Error error = addKernelEntries(**module, info))
    return error;
  if (Error error = addDeviceLaunches(**module, info))
    return error;
  addBlockKernelLimitsTable(**module, info);
  useFastRoots(**module);
  inlineIntoEntries(**module, **machine);
  if (inlineRarelyCalledPaths(**module))
    inlineIntoEntries(**module, **machine);
  if (Error error = lowerTextureReads(**module))
    return error;
  if (Error error = lowerWorkItemPrimitives(**module))
    return error;
  lowerPrivateAtomics(**module);
  scopeAtomics(**module);
  useFastFloatMath(**module);
  // After inlining, which libdevice's functions are not subject to.
  if (Error error = linkLibdeviceMath(**module))
    return error;

  std::string problems;
  raw_string_ostream problemStream(problems);
  if (verifyModule(**module, &problemStream))
    return compiler::codegenError("the GPU code generator made invalid IR: " + problems);
  optimize(**module, **machine, optimizeCode);
  if (optimizeCode) {
    versionTextureLoops(**module, **machine);
    unrollCountedLoops(**module, **machine);
  }
  lowerSaturatingConversions(**module);
  if (settingValue(Setting::PrintIr))
    (*module)->print(errs(), nullptr);
  Expected<std::string> ptx = emitPtx(**module, **machine);
  if (ptx)
    if (Error error = diagnostics->check("the GPU code generator failed"))
      return error;
  return ptx;
}

class LlvmPtxCompiler final : public PtxCompiler {
public:
  PtxResult compile(const compiler::Bitcode &module, const compiler::ProgramInfo &info,
                    unsigned smVersion, bool optimize) override {
    PtxResult result;
    std::string fatal;
    // Guarded like the front end: an LLVM fatal error or crash on some unusual kernel fails the
    // build instead of ending the application.
    bool finished = compiler::runGuarded(
        [&] {
          Expected<std::string> ptx = compileModule(module, info, smVersion, optimize);
          if (ptx) {
            result.success = true;
            result.ptx = std::move(*ptx);
          } else {
            result.error = toString(ptx.takeError());
          }
        },
        fatal);
    if (!finished)
      result.error = "the GPU code generator failed: " + fatal;
    return result;
  }
};

} // namespace

std::unique_ptr<PtxCompiler> createPtxCompiler() {
  return std::make_unique<LlvmPtxCompiler>();
}

} // namespace kiln::cuda
