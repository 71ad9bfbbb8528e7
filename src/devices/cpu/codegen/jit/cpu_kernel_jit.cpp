//===- cpu_kernel_jit.cpp - Work-group functions compiled with ORC -------===//
#include "devices/cpu/codegen/jit/cpu_kernel_jit.hpp"
#include "devices/cpu/codegen/optimization/chain_interleaving.hpp"

#include "compiler/llvm/fatal_error_guard.hpp"
#include "compiler/llvm/image_accessors.hpp"
#include "compiler/llvm/opaque_type_lowering.hpp"
#include "compiler/llvm/quiet_diagnostics.hpp"
#include "devices/cpu/codegen/jit/host_symbols.h"
#include "devices/cpu/codegen/jit/specialization_cache.hpp"
#include "devices/cpu/codegen/memory_paths/contiguous_gather_fast_path.hpp"
#include "devices/cpu/codegen/memory_paths/full_mask_fast_path.hpp"
#include "devices/cpu/codegen/memory_paths/indirect_prefetch.hpp"
#include "devices/cpu/codegen/memory_paths/streaming_stores.hpp"
#include "devices/cpu/codegen/memory_paths/strided_prefetch.hpp"
#include "devices/cpu/codegen/optimization/data_bounded_loops.hpp"
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"
#include "devices/cpu/codegen/optimization/uniform_division.hpp"
#include "devices/cpu/codegen/preparation/division_guard.hpp"
#include "devices/cpu/codegen/preparation/module_preparation.hpp"
#include "devices/cpu/codegen/work_group/work_group_function.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/vectorizer/work_item_vectorizer.hpp"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include "support/settings.hpp"
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
    settings.enabled = settingEnabled(Setting::Vectorize, true);
    if (std::optional<std::string_view> width = settingValue(Setting::SimdWidth)) {
      unsigned value =
          static_cast<unsigned>(std::strtoul(std::string(*width).c_str(), nullptr, 10));
      if (value >= 2 && value <= 64 && isPowerOf2_32(value))
        settings.width = value;
    }
    settings.report = settingValue(Setting::VectorizeReport).has_value();
    return settings;
  }
};

/// The host as the JIT's target, at the optimization level of the program.
Expected<std::unique_ptr<TargetMachine>> hostMachine(orc::JITTargetMachineBuilder &builder,
                                                     bool optimize) {
  builder.setCodeGenOptLevel(optimize ? CodeGenOptLevel::Aggressive : CodeGenOptLevel::None);
  return builder.createTargetMachine();
}

Expected<std::unique_ptr<Module>> parseModule(const compiler::Bitcode &bitcode,
                                              LLVMContext &context) {
  MemoryBufferRef buffer(StringRef(reinterpret_cast<const char *>(bitcode.data()), bitcode.size()),
                         "program");
  return parseBitcodeFile(buffer, context);
}

compiler::Bitcode writeModule(const Module &module) {
  SmallVector<char, 0> bytes;
  raw_svector_ostream stream(bytes);
  WriteBitcodeToFile(module, stream);
  return compiler::Bitcode(bytes.begin(), bytes.end());
}

/// Returns true (with the verifier's report) when `module` is broken.
bool verifyModuleText(const Module &module, std::string &problems) {
  raw_string_ostream stream(problems);
  return verifyModule(module, &stream);
}

/// Leaves in the prepared module only the work-group functions and what they use. Program-scope
/// variables get names of their own and external linkage: every specialization of every kernel
/// refers to the one definition the program's JIT holds (its globals module).
void keepOnlyWorkGroupFunctions(Module &module, const SmallPtrSetImpl<Function *> &prepared) {
  for (Function &function : module)
    if (!function.isDeclaration() && !prepared.contains(&function))
      function.deleteBody(); // inlined into the work-group functions
  for (Function &function : make_early_inc_range(module))
    if (function.isDeclaration() && function.use_empty())
      function.eraseFromParent();
  unsigned index = 0;
  for (GlobalVariable &variable : make_early_inc_range(module.globals())) {
    variable.removeDeadConstantUsers();
    if (variable.use_empty() && variable.getAddressSpace() == compiler::spir::kLocalAddressSpace) {
      variable.eraseFromParent(); // placed in the work-group's local memory
      continue;
    }
    if (!variable.hasInitializer())
      continue;
    variable.setName("__kiln_program_variable." + Twine(index++));
    variable.setLinkage(GlobalValue::ExternalLinkage);
    variable.setVisibility(GlobalValue::DefaultVisibility);
  }
}

/// The program's variables, defined once for all its specializations.
void keepOnlyVariables(Module &module) {
  for (Function &function : module)
    function.deleteBody();
  for (Function &function : make_early_inc_range(module))
    function.eraseFromParent();
}

/// Leaves `kept` as the module's only function body. Read-only variables stay defined, so that
/// the optimizer sees their contents; the others become references to the globals module.
void isolateWorkGroupFunction(Module &module, Function &kept) {
  for (Function &function : module)
    if (&function != &kept && !function.isDeclaration())
      function.deleteBody();
  for (GlobalVariable &variable : module.globals()) {
    if (!variable.hasInitializer())
      continue;
    if (variable.isConstant()) {
      variable.setLinkage(GlobalValue::InternalLinkage);
    } else {
      variable.setInitializer(nullptr);
      variable.setLinkage(GlobalValue::ExternalLinkage);
    }
  }
}

/// Kernels call C math functions (through the builtins and the backend's lowering of
/// intrinsics), memcpy and the like, and compiler runtime helpers. They are bound to the
/// functions this library was linked against, never looked up among the process's global
/// symbols: the application may not have loaded libm at all.
Error defineHostSymbols(orc::LLJIT &jit) {
  size_t count = 0;
  const KilnHostSymbol *symbols = kiln_host_symbols(&count);
  orc::SymbolMap map;
  for (const KilnHostSymbol &symbol : ArrayRef(symbols, count))
    map[jit.mangleAndIntern(symbol.name)] = {orc::ExecutorAddr::fromPtr(symbol.address),
                                             JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  return jit.getMainJITDylib().define(orc::absoluteSymbols(std::move(map)));
}

std::string describeShape(const WorkGroupShape &shape) {
  return std::to_string(shape.localSize[0]) + "x" + std::to_string(shape.localSize[1]) + "x" +
         std::to_string(shape.localSize[2]);
}

/// KILN_VECTORIZE_REPORT: one line per specialization on stderr, the only output Kiln writes
/// unasked for... because it was asked for. Written at once, so that the lines of kernels that
/// compile on different threads do not mix.
void reportVectorization(const std::string &kernel, const WorkGroupShape &shape, unsigned requested,
                         const SpecializedWorkGroup &result, unsigned streamingStores,
                         unsigned indirectPrefetches, unsigned stridedPrefetches) {
  std::string line;
  raw_string_ostream report(line);
  report << "kiln: kernel '" << kernel << "', work-groups of " << describeShape(shape) << ": ";
  if (requested == 1)
    report << "not vectorized (vectorization is off)";
  else if (result.simdWidth > 1)
    report << "vectorized, " << result.simdWidth << " work-items per SIMD group";
  else
    report << "not vectorized: " << result.notVectorized;
  if (result.vectorInstructions != 0)
    report << "; code of " << result.vectorInstructions << " instructions in lanes, "
           << result.scalarInstructions << " one work-item at a time";
  if (streamingStores != 0)
    report << "; " << streamingStores << " stores stream past the caches";
  if (indirectPrefetches != 0)
    report << "; " << indirectPrefetches << " indexed loads prefetched ahead";
  if (stridedPrefetches != 0)
    report << "; " << stridedPrefetches << " strided loads prefetched ahead";
  report << "\n";
  errs() << line;
}

/// The machine code of every shape of work-group the process has compiled, across programs: the
/// specialization cache's budget.
constexpr size_t kSpecializationCacheBytes = size_t(64) << 20;

/// Module identifiers of specializations start with this, followed by their cache key.
constexpr StringLiteral kSpecializationModulePrefix = "kiln-specialization:";

/// Keeps the object files ORC compiles from specialization modules, for the cache.
class ObjectCapture final : public ObjectCache {
public:
  void notifyObjectCompiled(const Module *module, MemoryBufferRef object) override {
    StringRef id = module->getModuleIdentifier();
    if (!id.consume_front(kSpecializationModulePrefix))
      return;
    std::lock_guard lock(mutex_);
    objects_[id] = object.getBuffer().str();
  }
  std::unique_ptr<MemoryBuffer> getObject(const Module *) override { return nullptr; }

  /// The object compiled for the specialization `key`, removed from here.
  std::optional<std::string> take(StringRef key) {
    std::lock_guard lock(mutex_);
    auto found = objects_.find(key);
    if (found == objects_.end())
      return std::nullopt;
    std::string object = std::move(found->second);
    objects_.erase(found);
    return object;
  }

private:
  std::mutex mutex_;
  StringMap<std::string> objects_;
};

/// A readable, unique name for a shape, part of the specialization's symbol and cache key.
std::string shapeTag(const WorkGroupShape &shape) {
  std::string tag = "l";
  tag += describeShape(shape);
  for (size_t dimension = 0; dimension < 3; ++dimension) {
    tag += dimension == 0 ? ".e" : "x";
    tag += std::to_string(shape.enqueuedLocalSize[dimension]);
  }
  tag += shape.zeroOffset ? ".z" : ".o";
  tag += shape.streamingStores ? ".s" : ".c";
  tag += shape.buffersHaveReadSlack ? ".r" : ".b";
  return tag;
}

std::string hashText(ArrayRef<uint8_t> bytes) {
  XXH128_hash_t hash = xxh3_128bits(bytes);
  return utohexstr(hash.high64, /*LowerCase=*/true, 16) + utohexstr(hash.low64, true, 16);
}

class CpuJitProgram final : public JitProgram {
public:
  CpuJitProgram(const PreparedProgram &prepared, const compiler::ProgramInfo &info,
                std::shared_ptr<SpecializationCache> cache)
      : prepared_(prepared), cache_(std::move(cache)),
        programKey_(hashText(prepared.module) + (prepared.optimize ? ".O" : ".O0") + ".w" +
                    std::to_string(prepared.requestedSimdWidth)) {
    for (const compiler::KernelInfo &kernel : info.kernels)
      kernelNames_.push_back(kernel.name);
  }

  bool specialize(size_t kernel, const WorkGroupShape &shape, WorkGroupCode &code,
                  std::string &error) override {
    if (kernel >= kernelNames_.size()) {
      error = "internal error: no kernel number " + std::to_string(kernel);
      return false;
    }
    std::lock_guard lock(mutex_);
    std::string fatal;
    bool compiled = false;
    // Code generation runs guarded, like the front end: an LLVM fatal error or crash on some
    // unusual kernel fails the launch instead of ending the application.
    bool finished = compiler::runGuarded(
        [&] {
          Expected<WorkGroupCode> result = compileSpecialization(kernel, shape);
          if (result) {
            code = *result;
            compiled = true;
          } else {
            error = message(result.takeError());
          }
        },
        fatal);
    if (!finished)
      error = fatal;
    return finished && compiled;
  }

private:
  /// The JIT and the program's variables, made for the first specialization.
  Error start() {
    if (jit_)
      return Error::success();
    initializeNativeTarget();
    Expected<orc::JITTargetMachineBuilder> builder = orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
      return builder.takeError();
    Expected<std::unique_ptr<TargetMachine>> machine = hostMachine(*builder, prepared_.optimize);
    if (!machine)
      return machine.takeError();
    // ORC's usual compiler, made to hand each specialization's object file to capture_.
    auto compiler = [this](orc::JITTargetMachineBuilder target)
        -> Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
      Expected<std::unique_ptr<TargetMachine>> machine = target.createTargetMachine();
      if (!machine)
        return machine.takeError();
      return std::make_unique<orc::TMOwningSimpleCompiler>(std::move(*machine), &capture_);
    };
    Expected<std::unique_ptr<orc::LLJIT>> jit = orc::LLJITBuilder()
                                                    .setJITTargetMachineBuilder(std::move(*builder))
                                                    .setCompileFunctionCreator(compiler)
                                                    .create();
    if (!jit)
      return jit.takeError();
    // Errors come back from the lookups; ORC's default reporter would print them too.
    (*jit)->getExecutionSession().setErrorReporter(
        [](Error error) { consumeError(std::move(error)); });
    if (Error error = defineHostSymbols(**jit))
      return error;

    std::unique_ptr<LLVMContext> context = compiler::makeQuietContext();
    Expected<std::unique_ptr<Module>> variables = parseModule(prepared_.module, *context);
    if (!variables)
      return variables.takeError();
    keepOnlyVariables(**variables);
    if (!(*variables)->global_empty())
      if (Error error =
              (*jit)->addIRModule(orc::ThreadSafeModule(std::move(*variables), std::move(context))))
        return error;
    machine_ = std::move(*machine);
    jit_ = std::move(*jit);
    return Error::success();
  }

  /// Called once per kernel and shape (each kernel's WorkGroupCodeCache asks only for shapes it
  /// lacks), so the symbol, named by the shape, is new to the JIT.
  Expected<WorkGroupCode> compileSpecialization(size_t kernel, const WorkGroupShape &shape) {
    if (Error error = start())
      return error;
    const std::string &name = kernelNames_[kernel];
    std::string symbol = workGroupFunctionName(name) + "." + shapeTag(shape);
    std::string key = programKey_ + "/" + symbol;
    // What is printed while compiling (the vectorizer's report, the IR) needs the compile.
    bool cacheable = !prepared_.reportVectorization && !settingValue(Setting::PrintIr);
    std::shared_ptr<const CachedSpecialization> cached = cacheable ? cache_->find(key) : nullptr;
    return cached ? linkCachedSpecialization(*cached, key)
                  : compileAndLink(name, shape, symbol, key);
  }

  /// A specialization from the cache, linked into this program's JIT.
  Expected<WorkGroupCode> linkCachedSpecialization(const CachedSpecialization &cached,
                                                   const std::string &key) {
    if (Error error = jit_->addObjectFile(MemoryBuffer::getMemBufferCopy(cached.object, key)))
      return error;
    return linkedWorkGroupCode(cached.symbol, cached.simdWidth, cached.privateBytesPerSimdGroup);
  }

  /// The work-group function `symbol` of this program's JIT, compiled on first lookup.
  Expected<WorkGroupCode> linkedWorkGroupCode(const std::string &symbol, uint32_t simdWidth,
                                              uint64_t privateBytesPerSimdGroup) {
    Expected<orc::ExecutorAddr> address = jit_->lookup(symbol);
    if (!address)
      return address.takeError();
    WorkGroupCode code;
    code.function = address->toPtr<WorkGroupFunction>();
    code.simdWidth = simdWidth;
    code.privateBytesPerSimdGroup = privateBytesPerSimdGroup;
    return code;
  }

  /// A work-group function specialized and optimized, in a module of its own.
  struct OptimizedSpecialization {
    std::unique_ptr<LLVMContext> context;
    std::unique_ptr<Module> module;
    Function *function = nullptr;
    SpecializedWorkGroup specialized;
    bool interleaved = false; // the work-items asked to run interleaved do
    /// What optimization and, at the JIT's first lookup, code generation diagnose.
    std::shared_ptr<const compiler::DiagnosedErrors> diagnostics;
  };

  Expected<OptimizedSpecialization>
  specializeAndOptimize(const std::string &name, const WorkGroupShape &shape,
                        const std::string &symbol, const std::string &key, bool mayInterleave) {
    OptimizedSpecialization result;
    result.context = std::make_unique<LLVMContext>();
    result.diagnostics = compiler::makeDiagnosticsQuiet(*result.context);
    Expected<std::unique_ptr<Module>> module = parseModule(prepared_.module, *result.context);
    if (!module)
      return module.takeError();
    result.module = std::move(*module);
    Function *function = result.module->getFunction(workGroupFunctionName(name));
    if (function == nullptr || function->isDeclaration())
      return compiler::codegenError("internal error: kernel '" + name + "' was not prepared");
    isolateWorkGroupFunction(*result.module, *function);
    Expected<SpecializedWorkGroup> specialized = specializeWorkGroupFunction(
        *function, shape, *machine_, prepared_.requestedSimdWidth, mayInterleave);
    if (!specialized)
      return specialized.takeError();
    function->setName(symbol);
    result.module->setModuleIdentifier((kSpecializationModulePrefix + key).str());
    if (std::string problems; verifyModuleText(*result.module, problems))
      return compiler::codegenError("internal error: invalid work-group code: " + problems);
    specializePowerOfTwoDivisions(*function);
    if (prepared_.optimize)
      keepDataBoundedLoopsRolled(*function);
    result.interleaved =
        optimizeModule(*result.module, *machine_, prepared_.optimize, specialized->interleave > 1);
    // The jam leaves each work-item's steps after the other's (chain_interleaving.hpp).
    if (result.interleaved && specialized->chainsSideBySide)
      interleaveIndependentChains(*function);
    result.function = function;
    result.specialized = std::move(*specialized);
    return result;
  }

  Expected<WorkGroupCode> compileAndLink(const std::string &name, const WorkGroupShape &shape,
                                         const std::string &symbol, const std::string &key) {
    Expected<OptimizedSpecialization> built =
        specializeAndOptimize(name, shape, symbol, key, /*mayInterleave=*/true);
    // Interleaving pays only where the optimizer could do it; otherwise the SIMD groups do better.
    if (built && built->specialized.interleave > 1 && !built->interleaved)
      built = specializeAndOptimize(name, shape, symbol, key, /*mayInterleave=*/false);
    if (!built)
      return built.takeError();
    std::unique_ptr<LLVMContext> context = std::move(built->context);
    std::unique_ptr<Module> module = std::move(built->module);
    std::shared_ptr<const compiler::DiagnosedErrors> diagnostics = built->diagnostics;
    Function *function = built->function;
    SpecializedWorkGroup *specialized = &built->specialized;
    if (prepared_.optimize && specialized->simdWidth > 1) {
      addContiguousGatherFastPaths(*function, hasAvx512());
      addFullMaskFastPaths(*function);
    }
    unsigned indirectPrefetches = 0, stridedPrefetches = 0;
    if (prepared_.optimize) {
      indirectPrefetches = addIndirectPrefetches(*function, shape.buffersHaveReadSlack);
      stridedPrefetches = addStridedPrefetches(*function);
    }
    unsigned streamingStores = 0;
    if (prepared_.optimize && shape.streamingStores && machine_->getTargetTriple().isX86() &&
        mayStreamStores(*function))
      streamingStores = addStreamingStores(*function);
    if (prepared_.reportVectorization)
      reportVectorization(name, shape, prepared_.requestedSimdWidth, *specialized, streamingStores,
                          indirectPrefetches, stridedPrefetches);
    if (settingValue(Setting::PrintIr))
      module->print(errs(), nullptr);
    if (Error error =
            jit_->addIRModule(orc::ThreadSafeModule(std::move(module), std::move(context))))
      return error;
    Expected<WorkGroupCode> code =
        linkedWorkGroupCode(symbol, specialized->simdWidth, specialized->privateBytesPerSimdGroup);
    if (!code)
      return code;
    // After code generation, the last step that diagnoses: code it reported an error in is
    // neither used nor cached.
    if (Error error = diagnostics->check("internal error"))
      return error;
    if (std::optional<std::string> object = capture_.take(key))
      cache_->insert(key, CachedSpecialization{std::move(*object), symbol, code->simdWidth,
                                               code->privateBytesPerSimdGroup});
    return code;
  }

  /// Whether the target has AVX-512's permutes, compresses and expands of 32-bit lanes
  /// (windowed_gather_fast_path.hpp).
  bool hasAvx512() const {
    return machine_->getTargetTriple().isX86() &&
           machine_->getMCSubtargetInfo()->checkFeatures("+avx512f");
  }

  PreparedProgram prepared_;
  std::shared_ptr<SpecializationCache> cache_;
  /// What identifies the prepared program in the cache's keys.
  std::string programKey_;
  std::vector<std::string> kernelNames_;
  std::mutex mutex_;      // one specialization at a time
  ObjectCapture capture_; // outlives the JIT that compiles into it
  std::unique_ptr<TargetMachine> machine_;
  std::unique_ptr<orc::LLJIT> jit_; // owns the code the function pointers point into
};

class CpuKernelJit final : public KernelJit {
public:
  bool prepare(const compiler::Bitcode &bitcode, const compiler::ProgramInfo &info, bool optimize,
               PreparedProgram &prepared, std::string &error) override {
    initializeNativeTarget();
    std::string fatal;
    bool finished = compiler::runGuarded(
        [&] {
          if (Error failure = prepareProgram(bitcode, info, optimize, prepared))
            error = message(std::move(failure));
        },
        fatal);
    if (!finished)
      error = fatal;
    return finished && error.empty();
  }

  std::unique_ptr<JitProgram> load(const PreparedProgram &prepared,
                                   const compiler::ProgramInfo &info) override {
    return std::make_unique<CpuJitProgram>(prepared, info, specializations_);
  }

  std::string hostCpuName() override { return sys::getHostCPUName().str(); }

private:
  std::shared_ptr<SpecializationCache> specializations_ =
      std::make_shared<SpecializationCache>(kSpecializationCacheBytes);

  static Error prepareProgram(const compiler::Bitcode &bitcode, const compiler::ProgramInfo &info,
                              bool optimize, PreparedProgram &prepared) {
    LLVMContext context;
    std::shared_ptr<const compiler::DiagnosedErrors> diagnostics =
        compiler::makeDiagnosticsQuiet(context);
    Expected<std::unique_ptr<Module>> module = parseModule(bitcode, context);
    if (!module)
      return module.takeError();
    Expected<orc::JITTargetMachineBuilder> builder = orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
      return builder.takeError();
    Expected<std::unique_ptr<TargetMachine>> machine = hostMachine(*builder, optimize);
    if (!machine)
      return machine.takeError();

    if (Error error = compiler::lowerOpaqueTypes(**module))
      return error;
    compiler::resolveImageAccessors(**module, /*textureHardware=*/false);
    retargetModuleToHost(**module, (*machine)->getTargetTriple(), (*machine)->createDataLayout());
    guardIntegerDivisions(**module);
    VectorizerSettings vectorizer = VectorizerSettings::fromEnvironment();
    prepared.optimize = optimize;
    prepared.requestedSimdWidth = optimize && vectorizer.enabled ? vectorizer.width : 1;
    prepared.reportVectorization = vectorizer.report;
    prepared.preferredMultiples.clear();
    SmallPtrSet<Function *, 8> functions;
    for (const compiler::KernelInfo &kernel : info.kernels) {
      Expected<Function *> function = prepareWorkGroupFunction(**module, kernel, **machine);
      if (!function)
        return function.takeError();
      functions.insert(*function);
      uint32_t multiple = prepared.requestedSimdWidth;
      if (multiple == 0)
        multiple = preferredSimdWidth(**function, **machine);
      else if (multiple == 1) // LLVM's loop vectorizer runs the work-item loops in these lanes
        multiple = optimize ? vectorRegisterLanes(**function, **machine) : 1;
      prepared.preferredMultiples.push_back(multiple);
    }
    keepOnlyWorkGroupFunctions(**module, functions);
    if (Error error = diagnostics->check("internal error"))
      return error;
    if (std::string problems; verifyModuleText(**module, problems))
      return createStringError(inconvertibleErrorCode(),
                               "internal error: invalid prepared code: " + problems);
    prepared.module = writeModule(**module);
    return Error::success();
  }
};

} // namespace

std::unique_ptr<KernelJit> createCpuKernelJit() {
  return std::make_unique<CpuKernelJit>();
}

} // namespace kiln::cpu
