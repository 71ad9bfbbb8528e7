//===- cpu_kernel_jit.cpp - Work-group functions compiled with ORC -------===//
#include "devices/cpu/codegen/cpu_kernel_jit.hpp"

#include "compiler/llvm/fatal_error_guard.hpp"
#include "devices/cpu/codegen/division_guard.hpp"
#include "devices/cpu/codegen/host_symbols.h"
#include "devices/cpu/codegen/module_preparation.hpp"
#include "devices/cpu/codegen/opaque_type_lowering.hpp"
#include "devices/cpu/codegen/pass_pipelines.hpp"
#include "devices/cpu/codegen/work_group_function.hpp"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>

using namespace llvm;

namespace kiln::cpu {
namespace {

std::string message(Error error) {
  return toString(std::move(error));
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

/// The work-item vectorizer's switches, read from the environment at each build:
/// KILN_VECTORIZE=0 keeps every kernel scalar, KILN_SIMD_WIDTH=N (2 to 64, a power of two)
/// chooses the lanes of every SIMD group, KILN_VECTORIZE_REPORT prints what happened to each
/// kernel.
struct VectorizerSettings {
  bool enabled = true;
  unsigned width = 0; // 0: the target's choice
  bool report = false;

  static VectorizerSettings fromEnvironment() {
    VectorizerSettings settings;
    if (const char *enabled = std::getenv("KILN_VECTORIZE"))
      settings.enabled = std::string_view(enabled) != "0";
    if (const char *width = std::getenv("KILN_SIMD_WIDTH")) {
      unsigned value = static_cast<unsigned>(std::strtoul(width, nullptr, 10));
      if (value >= 2 && value <= 64 && isPowerOf2_32(value))
        settings.width = value;
    }
    settings.report = std::getenv("KILN_VECTORIZE_REPORT") != nullptr;
    return settings;
  }
};

class CpuJitProgram final : public JitProgram {
public:
  CpuJitProgram(std::unique_ptr<orc::LLJIT> jit,
                std::map<std::string, JitKernel, std::less<>> kernels)
      : jit_(std::move(jit)), kernels_(std::move(kernels)) {}

  const JitKernel *kernel(std::string_view name) const override {
    auto found = kernels_.find(name);
    return found == kernels_.end() ? nullptr : &found->second;
  }

private:
  std::unique_ptr<orc::LLJIT> jit_; // owns the code the function pointers point into
  std::map<std::string, JitKernel, std::less<>> kernels_;
};

class CpuKernelJit final : public KernelJit {
public:
  std::unique_ptr<JitProgram> compile(const compiler::Bitcode &bitcode,
                                      const compiler::ProgramInfo &info, bool optimize,
                                      std::string &error) override {
    initializeNativeTarget();
    std::unique_ptr<JitProgram> program;
    std::string fatal;
    // Code generation runs guarded, like the front end: an LLVM fatal error or crash on some
    // unusual kernel fails the build instead of ending the application.
    bool finished = compiler::runGuarded(
        [&] {
          Expected<std::unique_ptr<JitProgram>> compiled = compileProgram(bitcode, info, optimize);
          if (compiled)
            program = std::move(*compiled);
          else
            error = message(compiled.takeError());
        },
        fatal);
    if (!finished)
      error = fatal;
    return program;
  }

  std::string hostCpuName() override { return sys::getHostCPUName().str(); }

private:
  Expected<std::unique_ptr<JitProgram>> compileProgram(const compiler::Bitcode &bitcode,
                                                       const compiler::ProgramInfo &info,
                                                       bool optimize) {
    auto context = std::make_unique<LLVMContext>();
    MemoryBufferRef buffer(
        StringRef(reinterpret_cast<const char *>(bitcode.data()), bitcode.size()), "program");
    Expected<std::unique_ptr<Module>> module = parseBitcodeFile(buffer, *context);
    if (!module)
      return module.takeError();

    Expected<orc::JITTargetMachineBuilder> machineBuilder =
        orc::JITTargetMachineBuilder::detectHost();
    if (!machineBuilder)
      return machineBuilder.takeError();
    machineBuilder->setCodeGenOptLevel(optimize ? CodeGenOptLevel::Aggressive
                                                : CodeGenOptLevel::None);
    Expected<std::unique_ptr<TargetMachine>> machine = machineBuilder->createTargetMachine();
    if (!machine)
      return machine.takeError();

    if (Error error = lowerOpaqueTypes(**module))
      return error;
    retargetModuleToHost(**module, (*machine)->getTargetTriple(), (*machine)->createDataLayout());
    guardIntegerDivisions(**module);
    std::map<std::string, JitKernel> generated;
    VectorizerSettings vectorizer = VectorizerSettings::fromEnvironment();
    for (const compiler::KernelInfo &kernel : info.kernels) {
      unsigned simdWidth = optimize && vectorizer.enabled ? vectorizer.width : 1; // 0: automatic
      Expected<GeneratedWorkGroup> function =
          buildWorkGroupFunction(**module, kernel, **machine, simdWidth);
      if (!function)
        return function.takeError();
      if (vectorizer.report)
        reportVectorization(kernel.name, simdWidth, *function);
      JitKernel &entry = generated[kernel.name];
      entry.privateBytesPerSimdGroup = function->privateBytesPerSimdGroup;
      entry.simdWidth = function->simdWidth;
      entry.preferredMultiple = function->simdWidth > 1 ? function->simdWidth
                                : optimize ? loopVectorizerWidth(*function->function, **machine)
                                           : 1;
    }
    if (std::string problems; verifyModuleText(**module, problems))
      return createStringError(inconvertibleErrorCode(),
                               "internal error: invalid work-group code: " + problems);
    optimizeModule(**module, **machine, optimize);
    if (std::getenv("KILN_PRINT_IR") != nullptr)
      (*module)->print(errs(), nullptr);

    Expected<std::unique_ptr<orc::LLJIT>> jit =
        orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*machineBuilder)).create();
    if (!jit)
      return jit.takeError();
    // Errors come back from the lookups below; ORC's default reporter would print them too.
    (*jit)->getExecutionSession().setErrorReporter(
        [](Error error) { consumeError(std::move(error)); });
    if (Error error = defineHostSymbols(**jit))
      return error;
    if (Error error =
            (*jit)->addIRModule(orc::ThreadSafeModule(std::move(*module), std::move(context))))
      return error;

    std::map<std::string, JitKernel, std::less<>> kernels;
    for (const compiler::KernelInfo &kernel : info.kernels) {
      Expected<orc::ExecutorAddr> address = (*jit)->lookup(workGroupFunctionName(kernel.name));
      if (!address)
        return address.takeError();
      JitKernel entry = generated[kernel.name];
      entry.function = address->toPtr<WorkGroupFunction>();
      if (entry.simdWidth > 1) {
        Expected<orc::ExecutorAddr> full = (*jit)->lookup(fullGroupsFunctionName(kernel.name));
        if (!full)
          return full.takeError();
        entry.fullGroupsFunction = full->toPtr<WorkGroupFunction>();
      }
      kernels.emplace(kernel.name, entry);
    }
    return std::make_unique<CpuJitProgram>(std::move(*jit), std::move(kernels));
  }

  /// Kernels call C math functions (through the builtins and the backend's lowering of
  /// intrinsics), memcpy and the like, and compiler runtime helpers. They are bound to the
  /// functions this library was linked against, never looked up among the process's global
  /// symbols: the application may not have loaded libm at all.
  static Error defineHostSymbols(orc::LLJIT &jit) {
    size_t count = 0;
    const KilnHostSymbol *symbols = kiln_host_symbols(&count);
    orc::SymbolMap map;
    for (const KilnHostSymbol &symbol : ArrayRef(symbols, count))
      map[jit.mangleAndIntern(symbol.name)] = {orc::ExecutorAddr::fromPtr(symbol.address),
                                               JITSymbolFlags::Exported | JITSymbolFlags::Callable};
    return jit.getMainJITDylib().define(orc::absoluteSymbols(std::move(map)));
  }

  /// The lanes of 32-bit elements in the vectors the loop vectorizer uses for `function`'s
  /// work-item loops (the target's preferred vector width, not always its widest registers).
  static uint32_t loopVectorizerWidth(const Function &function, TargetMachine &machine) {
    TargetTransformInfo target = machine.getTargetTransformInfo(function);
    uint64_t bits =
        target.getRegisterBitWidth(TargetTransformInfo::RGK_FixedWidthVector).getFixedValue();
    return static_cast<uint32_t>(std::max<uint64_t>(1, bits / 32));
  }

  /// KILN_VECTORIZE_REPORT: one line per kernel on stderr, the only output Kiln writes unasked
  /// for... because it was asked for.
  static void reportVectorization(const std::string &kernel, unsigned requested,
                                  const GeneratedWorkGroup &result) {
    if (requested == 1)
      errs() << "kiln: kernel '" << kernel << "': not vectorized (vectorization is off)\n";
    else if (result.simdWidth > 1)
      errs() << "kiln: kernel '" << kernel << "': vectorized, " << result.simdWidth
             << " work-items per SIMD group\n";
    else
      errs() << "kiln: kernel '" << kernel << "': not vectorized: " << result.notVectorized << "\n";
  }

  /// Returns true (with the verifier's report) when `module` is broken.
  static bool verifyModuleText(const Module &module, std::string &problems) {
    raw_string_ostream stream(problems);
    return verifyModule(module, &stream);
  }
};

} // namespace

std::unique_ptr<KernelJit> createCpuKernelJit() {
  return std::make_unique<CpuKernelJit>();
}

} // namespace kiln::cpu
