#include "compiler/llvm/module_linker.hpp"

#include "compiler/llvm/bitcode_io.hpp"
#include "compiler/llvm/builtin_library.hpp"
#include "compiler/llvm/enqueued_blocks.hpp"
#include "compiler/llvm/printf_lowering.hpp"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Operator.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

namespace kiln::compiler {
namespace {

/// Functions the device code generator implements itself (see src/builtins): the builtin
/// library may call them without defining them.
const llvm::StringSet<> &hostFunctions() {
  static const llvm::StringSet<> names = [] {
    llvm::StringSet<> set;
#if __has_include("builtins/host_math_functions.def")
#define KILN_HOST_FUNCTION(name) set.insert(#name);
#include "builtins/host_math_functions.def"
#undef KILN_HOST_FUNCTION
#endif
    return set;
  }();
  return names;
}

constexpr llvm::StringLiteral kPrimitivePrefix = "__kiln_";

/// Clang moves the body of each kernel into a callable copy named with this prefix.
constexpr llvm::StringLiteral kKernelCopyPrefix = "__clang_ocl_kern_imp_";

/// Marks code whose floating-point behaviour later program linking options must not change: a
/// library created without -enable-link-options.
constexpr llvm::StringLiteral kNoLinkOptions = "kiln-no-link-options";

/// Collects the linker's diagnostics (a symbol defined twice, ...) into the build log.
struct LinkDiagnostics {
  explicit LinkDiagnostics(llvm::LLVMContext &context, std::string &log)
      : context(context), stream(log) {
    previous = context.getDiagnosticHandlerCallBack();
    previousContext = context.getDiagnosticContext();
    context.setDiagnosticHandlerCallBack(&LinkDiagnostics::handle, this);
  }
  ~LinkDiagnostics() { context.setDiagnosticHandlerCallBack(previous, previousContext); }
  LinkDiagnostics(const LinkDiagnostics &) = delete;
  LinkDiagnostics &operator=(const LinkDiagnostics &) = delete;

  static void handle(const llvm::DiagnosticInfo *info, void *self) {
    auto &stream = static_cast<LinkDiagnostics *>(self)->stream;
    stream << llvm::LLVMContext::getDiagnosticMessagePrefix(info->getSeverity()) << ": ";
    llvm::DiagnosticPrinterRawOStream printer(stream);
    info->print(printer);
    stream << "\n";
  }

  llvm::LLVMContext &context;
  llvm::raw_string_ostream stream;
  llvm::DiagnosticHandler::DiagnosticHandlerTy previous;
  void *previousContext;
};

/// The program linking options (OpenCL 3.0 API 5.8.7.2), as fast-math flags and the function
/// attributes Clang sets for the same compile options. (-cl-denorms-are-zero is a module flag:
/// see setDenormsAreZero.)
struct LinkMathOptions {
  llvm::FastMathFlags flags;
  std::vector<std::pair<llvm::StringRef, llvm::StringRef>> attributes;

  explicit LinkMathOptions(const BuildOptions &options) {
    auto given = [&](llvm::StringRef option) {
      return llvm::is_contained(options.frontendArgs, option);
    };
    bool fast = given("-cl-fast-relaxed-math");
    bool unsafe = fast || given("-cl-unsafe-math-optimizations");
    if (fast || given("-cl-finite-math-only")) {
      flags.setNoNaNs();
      flags.setNoInfs();
      attributes.push_back({"no-nans-fp-math", "true"});
      attributes.push_back({"no-infs-fp-math", "true"});
    }
    if (unsafe || given("-cl-no-signed-zeros")) {
      flags.setNoSignedZeros();
      attributes.push_back({"no-signed-zeros-fp-math", "true"});
    }
    if (unsafe) {
      flags.setAllowReassoc();
      flags.setAllowReciprocal();
      flags.setAllowContract();
      flags.setApproxFunc();
      attributes.push_back({"less-precise-fpmad", "true"});
    }
  }
  bool empty() const { return !flags.any() && attributes.empty(); }
};

void applyMathOptions(llvm::Function &function, const LinkMathOptions &math) {
  for (const auto &[name, value] : math.attributes)
    function.addFnAttr(name, value);
  if (!math.flags.any())
    return;
  for (llvm::BasicBlock &block : function)
    for (llvm::Instruction &instruction : block)
      if (llvm::isa<llvm::FPMathOperator>(instruction))
        instruction.setFastMathFlags(instruction.getFastMathFlags() | math.flags);
}

/// Applies the program linking options to an executable's own code, or, when creating a library
/// without -enable-link-options, shields the library from later ones.
void handleLinkOptions(llvm::Module &module, const BuildOptions &options) {
  if (options.createLibrary) {
    if (!options.enableLinkOptions)
      for (llvm::Function &function : module)
        if (!function.isDeclaration())
          function.addFnAttr(kNoLinkOptions);
    return;
  }
  LinkMathOptions math(options);
  if (math.empty())
    return;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && !function.hasFnAttribute(kNoLinkOptions))
      applyMathOptions(function, math);
}

/// Parses every input; false (with the reasons logged) when any is unusable.
bool readInputs(std::span<const Bitcode *const> modules, llvm::LLVMContext &context,
                std::string &log, std::vector<std::unique_ptr<llvm::Module>> &inputs) {
  bool ok = true;
  for (size_t i = 0; i < modules.size(); ++i) {
    std::string name = "input program " + std::to_string(i + 1);
    if (!modules[i]) {
      log += "error: " + name + ": missing\n";
      ok = false;
      continue;
    }
    auto module = readModule(*modules[i], context, name);
    if (!module) {
      log += "error: " + llvm::toString(module.takeError()) + "\n";
      ok = false;
      continue;
    }
    inputs.push_back(std::move(*module));
  }
  return ok;
}

/// A symbol that two inputs both define, named as the programmer wrote it (LLVM's linker would
/// report the mangled name only). Definitions the linker may merge (inline functions, weak or
/// internal symbols) are fine.
bool reportDuplicateDefinitions(const std::vector<std::unique_ptr<llvm::Module>> &inputs,
                                std::string &log) {
  llvm::StringMap<size_t> definedIn;
  bool ok = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const llvm::GlobalValue &value : inputs[i]->global_values()) {
      // A kernel's callable copy clashes exactly when the kernel does: report the kernel only.
      if (value.isDeclaration() || value.hasLocalLinkage() || value.isWeakForLinker() ||
          value.hasAvailableExternallyLinkage() || value.getName().starts_with(kKernelCopyPrefix))
        continue;
      auto [where, inserted] = definedIn.try_emplace(value.getName(), i);
      if (inserted)
        continue;
      log += "error: '" + llvm::demangle(value.getName()) + "' is defined in both input program " +
             std::to_string(where->second + 1) + " and input program " + std::to_string(i + 1) +
             "\n";
      ok = false;
    }
  }
  return ok;
}

/// Merges the inputs into the first one.
std::unique_ptr<llvm::Module> mergeInputs(std::vector<std::unique_ptr<llvm::Module>> inputs,
                                          LinkDiagnostics &diagnostics) {
  std::unique_ptr<llvm::Module> program = std::move(inputs.front());
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (llvm::Linker::linkModules(*program, std::move(inputs[i]))) {
      diagnostics.stream << "error: linking input program " << i + 1 << " failed\n";
      return nullptr;
    }
  }
  return program;
}

/// The pieces of the builtin library that define what `program` declares and has not asked the
/// library for yet (recorded in `requested`). A piece may be needed again in a later round: the
/// linker takes only what is needed from it each time.
std::set<size_t> piecesNeeded(const llvm::Module &program, const BuiltinLibrary &library,
                              llvm::StringSet<> &requested) {
  std::set<size_t> needed;
  for (const llvm::GlobalValue &value : program.global_values()) {
    if (!value.isDeclaration() || value.getName().starts_with("llvm."))
      continue;
    std::optional<size_t> piece = library.pieceDefining(value.getName());
    if (piece && requested.insert(value.getName()).second)
      needed.insert(*piece);
  }
  return needed;
}

/// Links the functions of the builtin library the program needs (and what those need), reading
/// only the pieces of the library that define them.
bool linkBuiltins(llvm::Module &program, std::string &log) {
  const BuiltinLibrary &library = BuiltinLibrary::get();
  llvm::StringSet<> requested;
  // A piece's functions may call functions of other pieces: repeat until nothing is missing.
  for (std::set<size_t> needed = piecesNeeded(program, library, requested); !needed.empty();
       needed = piecesNeeded(program, library, requested)) {
    for (size_t index : needed) {
      // Lazily: only the bodies the linker pulls in are read.
      auto piece = llvm::getLazyBitcodeModule(library.piece(index), program.getContext(),
                                              /*ShouldLazyLoadMetadata=*/true);
      if (!piece) {
        log += "internal error: the builtin library cannot be read: " +
               llvm::toString(piece.takeError()) + "\n";
        return false;
      }
      (*piece)->setTargetTriple(program.getTargetTriple());
      if (llvm::Linker::linkModules(program, std::move(*piece), llvm::Linker::LinkOnlyNeeded)) {
        log += "error: linking the builtin library failed\n";
        return false;
      }
    }
  }
  return true;
}

/// The function that uses `value` first, as the programmer knows it.
std::string firstUser(const llvm::GlobalValue &value) {
  for (const llvm::User *user : value.users()) {
    if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(user)) {
      llvm::StringRef name = instruction->getFunction()->getName();
      name.consume_front(kKernelCopyPrefix);
      return llvm::demangle(name);
    }
  }
  return {};
}

/// A __kiln_* primitive, also when overloaded (mangled as _Z<length>__kiln_...).
bool isPrimitive(llvm::StringRef name) {
  if (name.consume_front("_Z"))
    name = name.drop_while([](char c) { return c >= '0' && c <= '9'; });
  return name.starts_with(kPrimitivePrefix);
}

bool providedByCodeGenerator(const llvm::Function &function) {
  llvm::StringRef name = function.getName();
  // Clang calls __translate_sampler_initializer for sampler_t constants; the code generator
  // says what a sampler is.
  return function.isIntrinsic() || isPrimitive(name) || name == "__translate_sampler_initializer" ||
         hostFunctions().contains(name);
}

} // namespace

std::vector<std::string> undefinedSymbols(const llvm::Module &module) {
  std::vector<std::string> problems;
  auto describe = [](const char *what, const llvm::GlobalValue &value) {
    std::string line = std::string(what) + " '" + llvm::demangle(value.getName().str()) + "'";
    if (std::string user = firstUser(value); !user.empty())
      line += " (used by '" + user + "')";
    return line;
  };
  for (const llvm::Function &function : module)
    if (function.isDeclaration() && !function.use_empty() && !providedByCodeGenerator(function))
      problems.push_back(describe("undefined function", function));
  for (const llvm::GlobalVariable &variable : module.globals())
    if (variable.isDeclaration() && !variable.use_empty())
      problems.push_back(describe("undefined variable", variable));
  return problems;
}

std::unique_ptr<llvm::Module> linkProgram(std::span<const Bitcode *const> modules,
                                          const BuildOptions &options, llvm::LLVMContext &context,
                                          std::string &log) {
  if (modules.empty()) {
    log += "error: no programs to link\n";
    return nullptr;
  }
  LinkDiagnostics diagnostics(context, log);
  std::vector<std::unique_ptr<llvm::Module>> inputs;
  if (!readInputs(modules, context, log, inputs) || !reportDuplicateDefinitions(inputs, log))
    return nullptr;
  std::unique_ptr<llvm::Module> program = mergeInputs(std::move(inputs), diagnostics);
  if (!program)
    return nullptr;
  handleLinkOptions(*program, options);
  if (options.createLibrary)
    return program;
  if (!lowerPrintfCalls(*program, log))
    return nullptr;
  numberEnqueuedBlocks(*program);
  if (!linkBuiltins(*program, log))
    return nullptr;
  std::vector<std::string> undefined = undefinedSymbols(*program);
  for (const std::string &line : undefined)
    diagnostics.stream << "error: " << line << "\n";
  if (!undefined.empty())
    return nullptr;
  return program;
}

} // namespace kiln::compiler
