#include "compiler/llvm/clang_invocation.hpp"

#include "compiler/llvm/asm_register_constraints.hpp"

#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace kiln::compiler {
namespace {

// Clang addresses all source text of a compile with 31-bit offsets; stay far below.
constexpr size_t kMaxSourceBytes = size_t(1) << 30;

// Clang's resource directory exists only in the in-memory file system of a compile, holding the
// embedded opencl-c-base.h: no compile reads the headers of an installed Clang.
constexpr const char *kResourceDir = "/kiln-clang-resource";

extern "C" const char kiln_opencl_base_header[];
extern "C" const char kiln_opencl_base_header_end[];
extern "C" const char kiln_extension_builtins_header[];
extern "C" const char kiln_extension_builtins_header_end[];

// Declares what Clang's builtin tables lack of the extensions Kiln offers; included after
// opencl-c-base.h.
constexpr const char *kExtensionBuiltinsHeader = "kiln-extension-builtins.h";

/// An embedded header; the text is followed by a NUL, as MemoryBuffer wants.
std::unique_ptr<llvm::MemoryBuffer> embeddedHeader(const char *begin, const char *end,
                                                   const char *name) {
  return llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(begin, end - begin), name,
                                          /*RequiresNullTerminator=*/true);
}

bool sameLanguageVersion(cl_version a, cl_version b) {
  return CL_VERSION_MAJOR(a) == CL_VERSION_MAJOR(b) && CL_VERSION_MINOR(a) == CL_VERSION_MINOR(b);
}

std::string versionText(cl_version version) {
  return std::to_string(CL_VERSION_MAJOR(version)) + "." +
         std::to_string(CL_VERSION_MINOR(version));
}

// Without -cl-std the specification compiles for the highest OpenCL C 1.x version the device
// supports (2.0 and 3.0 must be asked for). A device without any 1.x version gets its lowest.
cl_version defaultLanguageVersion(const TargetDescription &target) {
  std::optional<cl_version> best;
  for (cl_version version : target.languageVersions)
    if (CL_VERSION_MAJOR(version) == 1 && (!best || version > *best))
      best = version;
  if (best)
    return *best;
  if (!target.languageVersions.empty())
    return *std::min_element(target.languageVersions.begin(), target.languageVersions.end());
  return CL_MAKE_VERSION(1, 2, 0);
}

std::string languageStdArgument(cl_version version, bool cxx) {
  if (cxx)
    return CL_VERSION_MAJOR(version) >= 3 ? "-cl-std=CLC++2021" : "-cl-std=CLC++1.0";
  return "-cl-std=CL" + versionText(version);
}

// "-all" first, so that only what the device has is defined (Clang would otherwise enable every
// extension its SPIR target knows).
std::string extensionArgument(const TargetDescription &target) {
  std::string argument = "-cl-ext=-all";
  for (const std::vector<std::string> *names : {&target.extensions, &target.features})
    for (const std::string &name : *names)
      if (!name.empty())
        argument += ",+" + name;
  return argument;
}

// The OpenCL C specification's macros that Clang's SPIR target gets wrong for Kiln's devices.
std::vector<std::string> specificationMacros(const TargetDescription &target) {
  // __OPENCL_VERSION__, the device's OpenCL version, is not defined by Clang. Kiln's devices are
  // OpenCL 3.0 devices, whose highest OpenCL C version is 3.0 as well.
  cl_version device = CL_MAKE_VERSION(3, 0, 0);
  if (!target.languageVersions.empty())
    device = *std::max_element(target.languageVersions.begin(), target.languageVersions.end());
  std::vector<std::string> args = {
      "-D", "__OPENCL_VERSION__=" +
                std::to_string(CL_VERSION_MAJOR(device) * 100 + CL_VERSION_MINOR(device) * 10)};
  // Clang defines __IMAGE_SUPPORT__ for every SPIR compile; it must exist only when the device
  // has images, which a device reports with the __opencl_c_images feature.
  if (!llvm::is_contained(target.features, "__opencl_c_images"))
    args.insert(args.end(), {"-U", "__IMAGE_SUPPORT__"});
  return args;
}

/// Clang offers the sub-group extensions from OpenCL C 2.0 only; a device with sub-groups offers
/// them to OpenCL C 1.x programs too: their macros, and __kiln_sub_groups, which makes
/// kiln-extension-builtins.h declare their functions.
std::vector<std::string> subGroupMacrosBeforeOpenCLC2(const TargetDescription &target,
                                                      cl_version version) {
  if (CL_VERSION_MAJOR(version) >= 2 ||
      !llvm::is_contained(target.features, "__opencl_c_subgroups"))
    return {};
  std::vector<std::string> args = {"-D", "__kiln_sub_groups=1"};
  for (const std::string &name : target.extensions)
    if (llvm::StringRef(name).starts_with("cl_khr_subgroup") ||
        name == "cl_intel_required_subgroup_size")
      args.insert(args.end(), {"-D", name + "=1"});
  return args;
}

// Clang 16 and later make some old C diagnostics errors by default. The compilers OpenCL programs
// were written against (NVIDIA's, AMD's, Intel's, older Clang) only warn about them, and real
// programs rely on it (clFFT's generated kernels assign a float2 pointer to a float4 one; old
// samples write `__global *p` with implicit int). They stay warnings here, unless the program
// asks for -Werror: Clang would keep a diagnostic downgraded this way a warning even then.
std::vector<std::string> legacyDiagnosticArguments(const BuildOptions &options) {
  if (llvm::is_contained(options.frontendArgs, "-Werror"))
    return {};
  return {"-Wno-error=implicit-int", "-Wno-error=incompatible-pointer-types",
          "-Wno-error=incompatible-function-pointer-types", "-Wno-error=int-conversion"};
}

std::string currentDirectory() {
  llvm::SmallString<256> path;
  if (llvm::sys::fs::current_path(path))
    return "/";
  return std::string(path);
}

/// The real file system (for -I directories and includes next to the application) with the
/// program source and the clCompileProgram headers on top of it, in memory, in the current
/// directory: `#include "name.h"` in the source finds an embedded header before a real file.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
sourceFileSystem(std::string_view source, std::span<const SourceHeader> headers) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  std::string directory = currentDirectory();
  memory->setCurrentWorkingDirectory(directory);
  auto place = [&](llvm::StringRef name) {
    llvm::SmallString<256> path(name);
    llvm::sys::path::make_absolute(directory, path);
    return path;
  };
  // Clang's lexer needs a NUL after the text: the source is copied, and std::string (the
  // headers) already has one.
  memory->addFile(place(kMainFileName), 0,
                  llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source), kMainFileName));
  for (const SourceHeader &header : headers)
    if (!header.includeName.empty())
      memory->addFile(place(header.includeName), 0,
                      llvm::MemoryBuffer::getMemBuffer(header.text, header.includeName));
  memory->addFile(
      std::string(kResourceDir) + "/include/opencl-c-base.h", 0,
      embeddedHeader(kiln_opencl_base_header, kiln_opencl_base_header_end, "opencl-c-base.h"));
  memory->addFile(std::string(kResourceDir) + "/include/" + kExtensionBuiltinsHeader, 0,
                  embeddedHeader(kiln_extension_builtins_header, kiln_extension_builtins_header_end,
                                 kExtensionBuiltinsHeader));
  // The real file system's working directory is the process's: it must not be changed here.
  auto overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memory);
  return overlay;
}

/// Removes what keeps the CPU code generator from inlining and optimizing everything, whatever
/// the source asked for: it runs its own pipeline and needs the whole kernel in one function.
void allowInliningEverywhere(llvm::Module &module) {
  for (llvm::Function &function : module) {
    function.removeFnAttr(llvm::Attribute::OptimizeNone);
    function.removeFnAttr(llvm::Attribute::NoInline);
  }
}

std::string sourceSizeError(std::string_view source, std::span<const SourceHeader> headers) {
  size_t total = source.size();
  for (const SourceHeader &header : headers)
    total += header.text.size();
  if (total < kMaxSourceBytes)
    return {};
  return "error: the program source and its headers (" + std::to_string(total) +
         " bytes) exceed the compiler's limit of " + std::to_string(kMaxSourceBytes) + " bytes\n";
}

std::string cxxSupportError(const BuildOptions &options, const TargetDescription &target) {
  if (!options.cxxForOpenCL)
    return {};
  if (llvm::is_contained(target.extensions, "cl_ext_cxx_for_opencl"))
    return {};
  return "error: C++ for OpenCL (-cl-std=CLC++...) is not supported by this device "
         "(no cl_ext_cxx_for_opencl)\n";
}

} // namespace

std::optional<cl_version> chooseLanguageVersion(const BuildOptions &options,
                                                const TargetDescription &target, std::string &log) {
  if (options.languageVersion == 0)
    return defaultLanguageVersion(target);
  // A target with no list accepts every version Clang knows (used by tools and tests).
  if (target.languageVersions.empty())
    return options.languageVersion;
  for (cl_version version : target.languageVersions)
    if (sameLanguageVersion(version, options.languageVersion))
      return options.languageVersion;
  std::vector<std::string> supported;
  for (cl_version version : target.languageVersions)
    supported.push_back(versionText(version));
  log += "error: OpenCL C " + versionText(options.languageVersion) +
         (options.cxxForOpenCL ? " (the base of the requested C++ for OpenCL)" : "") +
         " is not supported by this device; it supports OpenCL C " + llvm::join(supported, ", ") +
         "\n";
  return std::nullopt;
}

std::vector<std::string> clangArguments(const BuildOptions &options,
                                        const TargetDescription &target, cl_version version,
                                        bool extensionBuiltins) {
  const std::string resourceDir = kResourceDir;
  std::vector<std::string> args = {
      "-triple", target.triple, languageStdArgument(version, options.cxxForOpenCL),
      // The builtins are declared lazily from Clang's tables instead of parsing opencl-c.h,
      // which would take most of a small build's time; the base header (types, macros) stays.
      "-finclude-default-header", "-fdeclare-opencl-builtins", "-resource-dir", resourceDir,
      "-internal-isystem", resourceDir + "/include", extensionArgument(target),
      // The runtime needs argument names and address spaces even when the application did not
      // ask (ProgramInfo::argInfoAvailable tells whether it did).
      "-cl-kernel-arg-info",
      // Optimizable but unoptimized IR: -O2 semantics (no optnone/noinline, TBAA, lifetime
      // markers) without running passes; the device code generator runs its own pipeline.
      // The module is verified after the fact, without aborting on a broken one.
      "-O2", "-disable-llvm-passes", "-disable-llvm-verifier",
      // Errors beyond this many are noise; Clang then stops with a fatal error.
      "-ferror-limit", "20",
      // Clang assumes an 8 MiB stack; runGuarded gives it far more. Its warning about deep
      // nesting would be false, and an error under -Werror.
      "-Wno-stack-exhausted"};
  if (extensionBuiltins)
    args.insert(args.end(), {"-include", kExtensionBuiltinsHeader});
  // Value names only help a human reading the IR of a debug build.
  if (!options.debugInfo)
    args.push_back("-discard-value-names");
  if (options.cxxForOpenCL)
    args.push_back("-fno-threadsafe-statics");
  // `asm`, a GNU keyword, for the devices whose code generator takes inline assembly.
  if (target.inlineAssembly)
    args.push_back("-fgnu-keywords");
  std::vector<std::string> macros = specificationMacros(target);
  args.insert(args.end(), macros.begin(), macros.end());
  if (!options.cxxForOpenCL) {
    std::vector<std::string> subGroups = subGroupMacrosBeforeOpenCLC2(target, version);
    args.insert(args.end(), subGroups.begin(), subGroups.end());
  }
  std::vector<std::string> legacy = legacyDiagnosticArguments(options);
  args.insert(args.end(), legacy.begin(), legacy.end());
  args.insert(args.end(), options.frontendArgs.begin(), options.frontendArgs.end());
  args.insert(args.end(), {"-x", options.cxxForOpenCL ? "clcpp" : "cl", kMainFileName});
  return args;
}

namespace {

/// Whether the program's text names one of the functions kiln-extension-builtins.h declares:
/// every one of them has this in its name.
constexpr std::string_view kExtensionBuiltinsNamePart = "sub_group";

bool mayCallExtensionBuiltins(std::string_view source, std::span<const SourceHeader> headers) {
  auto mentions = [](std::string_view text) {
    return text.find(kExtensionBuiltinsNamePart) != std::string_view::npos;
  };
  return mentions(source) ||
         std::any_of(headers.begin(), headers.end(),
                     [&](const SourceHeader &header) { return mentions(header.text); });
}

/// One run of Clang on the program, with or without kiln-extension-builtins.h.
std::unique_ptr<llvm::Module>
compileOnce(std::string_view source, std::span<const SourceHeader> headers,
            const BuildOptions &options, const TargetDescription &target, cl_version version,
            bool extensionBuiltins, llvm::LLVMContext &context, std::string &log) {
  std::vector<std::string> args = clangArguments(options, target, version, extensionBuiltins);
  std::vector<const char *> argv;
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());

  llvm::raw_string_ostream logStream(log);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  {
    // Only argument errors can come here: the options were checked by parseBuildOptions.
    clang::DiagnosticOptions argDiagOptions;
    clang::TextDiagnosticPrinter argPrinter(logStream, argDiagOptions);
    clang::DiagnosticsEngine argDiags(clang::DiagnosticIDs::create(), argDiagOptions, &argPrinter,
                                      /*ShouldOwnClient=*/false);
    if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, argDiags))
      return nullptr;
  }
  // Diagnostics exactly as clang prints them: file:line:col, source line, caret, no colors.
  // (Declared before the compiler, which refers to it until destroyed.)
  clang::TextDiagnosticPrinter printer(logStream, invocation->getDiagnosticOpts());
  clang::CompilerInstance compiler(invocation);
  compiler.setVirtualFileSystem(sourceFileSystem(source, headers));
  compiler.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  // "N errors generated." goes to the log too, not to the application's stderr.
  compiler.setVerboseOutputStream(logStream);

  clang::EmitLLVMOnlyAction action(&context);
  bool ok = compiler.ExecuteAction(action) && !compiler.getDiagnostics().hasErrorOccurred();
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!ok || !module)
    return nullptr;
  allowInliningEverywhere(*module);
  return module;
}

/// `headers`, or, where the operands of a header's `asm` statements name some of `letters`,
/// copies of them with those read as `r` (asm_register_constraints.hpp), kept in `storage`.
std::span<const SourceHeader> headersWithGenericAsm(std::span<const SourceHeader> headers,
                                                    std::string_view letters,
                                                    std::vector<SourceHeader> &storage) {
  for (size_t i = 0; i < headers.size(); ++i) {
    std::optional<std::string> text = readAsmRegisterClassesAsGeneric(headers[i].text, letters);
    if (!text)
      continue;
    if (storage.empty())
      storage.assign(headers.begin(), headers.end());
    storage[i].text = std::move(*text);
  }
  return storage.empty() ? headers : std::span<const SourceHeader>(storage);
}

} // namespace

std::unique_ptr<llvm::Module> runClang(std::string_view source,
                                       std::span<const SourceHeader> headers,
                                       const BuildOptions &options, const TargetDescription &target,
                                       llvm::LLVMContext &context, std::string &log) {
  // The device's own asm register classes read as `r`; the rewritten texts live here.
  std::optional<std::string> genericSource;
  std::vector<SourceHeader> genericHeaders;
  if (const std::string &letters = target.inlineAssemblyRegisterClasses; !letters.empty()) {
    if ((genericSource = readAsmRegisterClassesAsGeneric(source, letters)))
      source = *genericSource;
    headers = headersWithGenericAsm(headers, letters, genericHeaders);
  }
  if (std::string error = sourceSizeError(source, headers) + cxxSupportError(options, target);
      !error.empty()) {
    log += error;
    return nullptr;
  }
  std::optional<cl_version> version = chooseLanguageVersion(options, target, log);
  if (!version)
    return nullptr;
  // A program that does not spell the extension builtins' names is compiled without their
  // declarations (a third of a small build's time); should it fail, it may reach them another
  // way (a header on disk, pasted tokens): then it is compiled again with them, and that
  // compile's log is the one it gets.
  if (!mayCallExtensionBuiltins(source, headers)) {
    std::string firstLog;
    if (auto module =
            compileOnce(source, headers, options, target, *version, false, context, firstLog)) {
      log += firstLog;
      return module;
    }
  }
  return compileOnce(source, headers, options, target, *version, true, context, log);
}

} // namespace kiln::compiler
