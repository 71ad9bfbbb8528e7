//===- cpu_kernel_jit.cpp - Work-group functions compiled with ORC -------===//
#include "devices/cpu/codegen/jit/cpu_kernel_jit.hpp"

#include "compiler/llvm/fatal_error_guard.hpp"
#include "compiler/llvm/quiet_diagnostics.hpp"
#include "devices/cpu/codegen/jit/host_symbols.h"
#include "devices/cpu/codegen/jit/program_modules.hpp"
#include "devices/cpu/codegen/jit/specialization_cache.hpp"
#include "devices/cpu/codegen/jit/stack_sizes.hpp"
#include "devices/cpu/codegen/jit/vectorization_report.hpp"
#include "devices/cpu/codegen/pipeline.hpp"
#include "support/settings.hpp"

#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

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

/// The host as the JIT's target, at the optimization level of the program.
Expected<std::unique_ptr<TargetMachine>> hostMachine(orc::JITTargetMachineBuilder &builder,
                                                     bool optimize) {
  builder.setCodeGenOptLevel(optimize ? CodeGenOptLevel::Aggressive : CodeGenOptLevel::None);
  // Each function's frame size, in a section the JIT does not load (stack_sizes.hpp).
  builder.getOptions().EmitStackSizeSection = true;
  return builder.createTargetMachine();
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
  // The image formats, where any is specialized: order, type and element size of each.
  if (shape.imageFormats != decltype(shape.imageFormats){})
    for (const ImageFormat &format : shape.imageFormats)
      tag += ".i" + utohexstr(format.channelOrder, /*LowerCase=*/true) + "_" +
             utohexstr(format.channelType, true) + "_" + std::to_string(format.elementSize);
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
    // The sub-group width is not in the prepared module: programs that differ only in a
    // kernel's intel_reqd_sub_group_size share it.
    std::string key =
        programKey_ + "/" + symbol + ".s" + std::to_string(prepared_.subGroupWidths[kernel]);
    // What is printed while compiling (the vectorizer's report, the IR) needs the compile.
    bool cacheable = !prepared_.reportVectorization && !settingValue(Setting::PrintIr);
    std::shared_ptr<const CachedSpecialization> cached = cacheable ? cache_->find(key) : nullptr;
    return cached ? linkCachedSpecialization(*cached, key)
                  : compileAndLink(name, prepared_.subGroupWidths[kernel], shape, symbol, key);
  }

  /// A specialization from the cache, linked into this program's JIT.
  Expected<WorkGroupCode> linkCachedSpecialization(const CachedSpecialization &cached,
                                                   const std::string &key) {
    if (Error error = jit_->addObjectFile(MemoryBuffer::getMemBufferCopy(cached.object, key)))
      return error;
    Expected<WorkGroupCode> code = linkedWorkGroupCode(
        cached.symbol, cached.simdWidth, cached.privateBytesPerSimdGroup, cached.groupsInStep);
    if (code)
      code->stackBytes = stackBytesOf(cached.object);
    return code;
  }

  /// The work-group function `symbol` of this program's JIT, compiled on first lookup.
  Expected<WorkGroupCode> linkedWorkGroupCode(const std::string &symbol, uint32_t simdWidth,
                                              uint64_t privateBytesPerSimdGroup,
                                              uint32_t groupsInStep) {
    Expected<orc::ExecutorAddr> address = jit_->lookup(symbol);
    if (!address)
      return address.takeError();
    WorkGroupCode code;
    code.function = address->toPtr<WorkGroupFunction>();
    code.simdWidth = simdWidth;
    code.privateBytesPerSimdGroup = privateBytesPerSimdGroup;
    code.groupsInStep = groupsInStep;
    return code;
  }

  Expected<WorkGroupCode> compileAndLink(const std::string &name, unsigned subGroupWidth,
                                         const WorkGroupShape &shape, const std::string &symbol,
                                         const std::string &key) {
    Expected<ShapeCompilation> built =
        compileForShape(prepared_, name, subGroupWidth, shape, symbol,
                        (kSpecializationModulePrefix + key).str(), *machine_);
    if (!built)
      return built.takeError();
    std::unique_ptr<LLVMContext> context = std::move(built->context);
    std::unique_ptr<Module> module = std::move(built->module);
    std::shared_ptr<const compiler::DiagnosedErrors> diagnostics = built->diagnostics;
    const SpecializedWorkGroup *specialized = &built->specialized;
    if (prepared_.reportVectorization)
      reportVectorization(name, shape, prepared_.requestedSimdWidth, *built);
    if (settingValue(Setting::PrintIr))
      module->print(errs(), nullptr);
    if (Error error =
            jit_->addIRModule(orc::ThreadSafeModule(std::move(module), std::move(context))))
      return error;
    Expected<WorkGroupCode> code =
        linkedWorkGroupCode(symbol, specialized->simdWidth, specialized->privateBytesPerSimdGroup,
                            specialized->groupsInStep);
    if (!code)
      return code;
    // After code generation, the last step that diagnoses: code it reported an error in is
    // neither used nor cached.
    if (Error error = diagnostics->check("internal error"))
      return error;
    if (std::optional<std::string> object = capture_.take(key)) {
      code->stackBytes = stackBytesOf(*object);
      cache_->insert(key, CachedSpecialization{std::move(*object), symbol, code->simdWidth,
                                               code->privateBytesPerSimdGroup, code->groupsInStep});
    }
    return code;
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
          if (Error failure = prepareModule(bitcode, info, optimize, prepared))
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

  static Error prepareModule(const compiler::Bitcode &bitcode, const compiler::ProgramInfo &info,
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

    if (Error error = cpu::prepareProgram(**module, info, **machine, optimize, prepared))
      return error;
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
