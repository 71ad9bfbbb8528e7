// kilnc: the Kiln OpenCL C front end on the command line, for developers.
//
//   kilnc [options] file.cl... [-o out.bc] [--emit-llvm] [--link] [--link-options "..."]
//   kilnc [options] file.cl --spirv -o out.spv
//
// Loads libkiln-compiler.so the way the runtime does (dlopen, kiln_compiler_services_v4),
// compiles each .cl file, optionally links the results (and any .bc inputs) into an executable,
// and prints the build log and the ProgramInfo the runtime would get. With --ptx, the linked
// executable goes on through the GPU device's code generator, as it would for an NVIDIA GPU. With
// --spirv, one compiled file becomes a SPIR-V module (LLVM's own SPIR-V back end), which
// clCreateProgramWithIL reads on any Kiln device. Any
// argument kilnc does not know is an OpenCL build option (-cl-std=CL3.0, -DNAME=1, -I dir, ...).
#include "compiler/compiler_library.hpp"
#include "compiler/frontend.hpp"
#include "devices/cuda/ptx_compiler.hpp"
#include "devices/cuda/ptx_register_classes.hpp"
#include "runtime/objects/extension_table.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace kiln;
using namespace kiln::compiler;
using Clock = std::chrono::steady_clock;

constexpr const char *kUsage = R"(usage: kilnc [options] file.cl|file.bc... [-o out.bc]
  -o FILE               write the resulting bitcode (one compile, or the link) to FILE
  --emit-llvm           print the resulting module as LLVM IR
  --link                link the compiled inputs (and .bc inputs) into an executable
  --link-options "..."  link with these clLinkProgram options (compile with clCompileProgram
                        rules); without it, --link uses one set of clBuildProgram options
  --options "..."       an OpenCL options string (added to the loose options)
  --header NAME=FILE    give FILE to the compile as the embedded header NAME
  --inspect             only check the .bc inputs with Frontend::inspect (as executables
                        with --link) and print what it reports
  --versions LIST       OpenCL C versions of the target, e.g. 1.2,3.0 (default 1.0-3.0)
  --extensions LIST     the target's extensions (default: every one a Kiln device offers; "" for none)
  --features LIST       the target's OpenCL C 3.0 features (default: every one a Kiln device offers)
  --ptx SM              after --link, compile the executable to PTX for sm_SM (e.g. 90) as the
                        GPU device does; -o then writes the PTX
  --spirv               write the compile of one file as a SPIR-V module (LLVM's SPIR-V back
                        end) instead of bitcode; -o names the file
  --repeat N            compile N times and report the time of each (timing)
  -q                    print only the log and errors
Any other argument starting with '-' is an OpenCL build option.
Environment: KILN_COMPILER_LIBRARY overrides the path of libkiln-compiler.so.
)";

struct Arguments {
  std::vector<std::string> inputs;
  std::string output;
  std::string options;
  std::optional<std::string> linkOptions;
  std::vector<SourceHeader> headers;
  bool emitLlvm = false;
  bool link = false;
  bool inspect = false;
  bool quiet = false;
  int repeat = 1;
  unsigned ptxArchitecture = 0; // 0: no PTX
  bool spirv = false;
  TargetDescription target;
};

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty())
      items.push_back(item);
  return items;
}

std::optional<std::string> readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return std::nullopt;
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

bool writeFile(const std::string &path, const Bitcode &bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  return bool(file);
}

// A device like Kiln's: every OpenCL C version, and every extension and feature some Kiln device
// offers (runtime/objects/extension_table.hpp), images included.
void setDefaultTarget(TargetDescription &target) {
  for (auto [major, minor] : {std::pair{1, 0}, {1, 1}, {1, 2}, {2, 0}, {3, 0}})
    target.languageVersions.push_back(CL_MAKE_VERSION(major, minor, 0));
  for (const kiln::OfferedName &offered : kiln::kOfferedNames)
    (offered.kind == kiln::OfferedKind::Extension ? target.extensions : target.features)
        .emplace_back(offered.name);
}

std::optional<cl_version> parseVersion(const std::string &text) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "%u.%u", &major, &minor) != 2)
    return std::nullopt;
  return CL_MAKE_VERSION(major, minor, 0);
}

bool parseArguments(int argc, char **argv, Arguments &args) {
  setDefaultTarget(args.target);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) {
        std::cerr << "kilnc: " << arg << " needs a value\n";
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    std::optional<std::string> v;
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "-o") {
      if (!(v = value()))
        return false;
      args.output = *v;
    } else if (arg == "--emit-llvm") {
      args.emitLlvm = true;
    } else if (arg == "--spirv") {
      args.spirv = true;
    } else if (arg == "--link") {
      args.link = true;
    } else if (arg == "--ptx") {
      if (!(v = value()))
        return false;
      args.ptxArchitecture = static_cast<unsigned>(std::strtoul(v->c_str(), nullptr, 10));
      if (args.ptxArchitecture == 0) {
        std::cerr << "kilnc: --ptx wants an architecture number such as 90\n";
        return false;
      }
      // The GPU device's programs may hold PTX in `asm`, naming PTX's register classes.
      args.target.inlineAssembly = true;
      args.target.inlineAssemblyRegisterClasses = cuda::kPtxRegisterClassLetters;
    } else if (arg == "--inspect") {
      args.inspect = true;
    } else if (arg == "-q") {
      args.quiet = true;
    } else if (arg == "--link-options") {
      if (!(args.linkOptions = value()))
        return false;
    } else if (arg == "--options") {
      if (!(v = value()))
        return false;
      args.options.append(" ").append(*v);
    } else if (arg == "--header") {
      if (!(v = value()))
        return false;
      size_t equals = v->find('=');
      std::optional<std::string> text;
      if (equals == std::string::npos || !(text = readFile(v->substr(equals + 1)))) {
        std::cerr << "kilnc: --header wants NAME=FILE with a readable FILE\n";
        return false;
      }
      args.headers.push_back({v->substr(0, equals), *text});
    } else if (arg == "--versions") {
      if (!(v = value()))
        return false;
      args.target.languageVersions.clear();
      for (const std::string &item : splitList(*v)) {
        std::optional<cl_version> version = parseVersion(item);
        if (!version) {
          std::cerr << "kilnc: bad version '" << item << "'\n";
          return false;
        }
        args.target.languageVersions.push_back(*version);
      }
    } else if (arg == "--extensions") {
      if (!(v = value()))
        return false;
      args.target.extensions = splitList(*v);
    } else if (arg == "--features") {
      if (!(v = value()))
        return false;
      args.target.features = splitList(*v);
    } else if (arg == "--repeat") {
      if (!(v = value()))
        return false;
      args.repeat = std::max(1, std::atoi(v->c_str()));
    } else if (arg.size() > 1 && arg[0] == '-') {
      // An OpenCL option; -D and -I may take the next word as their value.
      args.options.append(" ").append(arg);
      if ((arg == "-D" || arg == "-I" || arg == "-x") && i + 1 < argc)
        args.options.append(" ").append(argv[++i]);
    } else {
      args.inputs.push_back(arg);
    }
  }
  if (args.inputs.empty()) {
    std::cerr << kUsage;
    return false;
  }
  return true;
}

// --- Loading the compiler library ---------------------------------------------------------------

std::string executableDirectory() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(".") : self.parent_path().string();
}

CompilerServices *loadServices() {
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("KILN_COMPILER_LIBRARY"))
    candidates.push_back(path);
  std::string here = executableDirectory();
  candidates.push_back(here + "/../src/libkiln-compiler.so"); // the build tree
  candidates.push_back(here + "/../lib/libkiln-compiler.so"); // an installation
  candidates.push_back(here + "/libkiln-compiler.so");
  std::string errors;
  for (const std::string &path : candidates) {
    if (!std::filesystem::exists(path))
      continue;
    // Never unloaded: the services live as long as the process.
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      errors += std::string("  ") + dlerror() + "\n";
      continue;
    }
    auto entry = reinterpret_cast<CompilerServicesEntry>(dlsym(library, kCompilerServicesSymbol));
    if (entry)
      return entry();
    errors += "  " + path + ": no " + kCompilerServicesSymbol + "\n";
  }
  std::cerr << "kilnc: cannot load libkiln-compiler.so (set KILN_COMPILER_LIBRARY)\n" << errors;
  return nullptr;
}

// --- Printing -----------------------------------------------------------------------------------

const char *kindName(ArgKind kind) {
  switch (kind) {
  case ArgKind::Value:
    return "value";
  case ArgKind::GlobalPointer:
    return "global buffer";
  case ArgKind::ConstantPointer:
    return "constant buffer";
  case ArgKind::LocalPointer:
    return "local";
  case ArgKind::Image:
    return "image";
  case ArgKind::Sampler:
    return "sampler";
  case ArgKind::Pipe:
    return "pipe";
  case ArgKind::Queue:
    return "queue";
  }
  return "?";
}

const char *addressName(cl_kernel_arg_address_qualifier qualifier) {
  switch (qualifier) {
  case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    return "global";
  case CL_KERNEL_ARG_ADDRESS_CONSTANT:
    return "constant";
  case CL_KERNEL_ARG_ADDRESS_LOCAL:
    return "local";
  default:
    return "private";
  }
}

std::string accessName(cl_kernel_arg_access_qualifier qualifier) {
  switch (qualifier) {
  case CL_KERNEL_ARG_ACCESS_READ_ONLY:
    return "read_only ";
  case CL_KERNEL_ARG_ACCESS_WRITE_ONLY:
    return "write_only ";
  case CL_KERNEL_ARG_ACCESS_READ_WRITE:
    return "read_write ";
  default:
    return "";
  }
}

std::string typeQualifierNames(cl_kernel_arg_type_qualifier qualifiers) {
  std::string text;
  if (qualifiers & CL_KERNEL_ARG_TYPE_CONST)
    text += "const ";
  if (qualifiers & CL_KERNEL_ARG_TYPE_VOLATILE)
    text += "volatile ";
  if (qualifiers & CL_KERNEL_ARG_TYPE_RESTRICT)
    text += "restrict ";
  if (qualifiers & CL_KERNEL_ARG_TYPE_PIPE)
    text += "pipe ";
  return text;
}

std::string sizes(const std::array<size_t, 3> &values) {
  return std::to_string(values[0]) + "," + std::to_string(values[1]) + "," +
         std::to_string(values[2]);
}

void printKernel(const KernelInfo &kernel) {
  std::cout << "kernel " << kernel.name << "\n";
  if (!kernel.attributes.empty())
    std::cout << "  attributes: " << kernel.attributes << "\n";
  if (kernel.requiredWorkGroupSize[0])
    std::cout << "  required work-group size: " << sizes(kernel.requiredWorkGroupSize) << "\n";
  if (kernel.workGroupSizeHint[0])
    std::cout << "  work-group size hint: " << sizes(kernel.workGroupSizeHint) << "\n";
  if (!kernel.vecTypeHint.empty())
    std::cout << "  vec type hint: " << kernel.vecTypeHint << "\n";
  if (kernel.requiredSubGroupSize)
    std::cout << "  required sub-group size: " << kernel.requiredSubGroupSize << "\n";
  if (kernel.usesPrintf)
    std::cout << "  calls printf\n";
  std::cout << "  static local memory: " << kernel.staticLocalMemSize << " bytes\n";
  std::cout << "  argument block: " << kernel.argBlockSize << " bytes, aligned to "
            << kernel.argBlockAlignment << "\n";
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const KernelArgInfo &arg = kernel.args[i];
    std::cout << "  arg " << i << ": " << addressName(arg.addressQualifier) << " "
              << accessName(arg.accessQualifier) << typeQualifierNames(arg.typeQualifier)
              << arg.typeName << " " << arg.name << "  [" << kindName(arg.kind) << ", value size "
              << arg.valueSize << ", block offset " << arg.blockOffset << ", block size "
              << arg.blockSize << "]\n";
  }
}

/// A printf format as a C string literal would spell it.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '"' || c == '\\')
      out.append({'\\', c});
    else
      out += c;
  }
  return out + "\"";
}

/// How a printf record holds an argument: "int32", "float64x4", "string", "pointer64".
std::string printfArgumentName(const PrintfArgument &arg) {
  using Kind = PrintfArgument::Kind;
  if (arg.kind == Kind::String)
    return "string";
  std::string name = arg.kind == Kind::Integer ? "int"
                     : arg.kind == Kind::Float ? "float"
                                               : "pointer";
  name += std::to_string(arg.elementBytes * 8);
  if (arg.elementCount > 1) {
    name += 'x';
    name += std::to_string(arg.elementCount);
  }
  return name;
}

void printPrintfCalls(const ProgramInfo &info) {
  for (size_t i = 0; i < info.printfCalls.size(); ++i) {
    const PrintfCallSite &call = info.printfCalls[i];
    std::cout << "printf call " << i << ": " << quoted(call.format);
    for (const PrintfArgument &arg : call.args)
      std::cout << ", " << printfArgumentName(arg);
    std::cout << "\n";
  }
}

void printProgramInfo(const ProgramInfo &info) {
  std::cout << "program: " << info.kernels.size() << " kernel(s), global variables "
            << info.globalVariableTotalSize << " bytes, argument info "
            << (info.argInfoAvailable ? "requested" : "not requested") << "\n";
  for (const KernelInfo &kernel : info.kernels)
    printKernel(kernel);
  printPrintfCalls(info);
}

/// `bytes` (a Kiln module) parsed in `context`; null, with the reason on stderr, when it cannot be.
std::unique_ptr<llvm::Module> parseModule(const Bitcode &bytes, llvm::LLVMContext &context) {
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size()), "module");
  auto module = llvm::parseBitcodeFile(buffer, context);
  if (!module) {
    std::cerr << "kilnc: cannot read the module: " << llvm::toString(module.takeError()) << "\n";
    return nullptr;
  }
  return std::move(*module);
}

void printIr(const Bitcode &bytes) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseModule(bytes, context);
  if (!module)
    return;
  module->print(llvm::outs(), nullptr);
  llvm::outs().flush();
}

void printLog(const std::string &what, const std::string &log) {
  if (!log.empty())
    std::cout << "--- " << what << " log ---\n" << log << (log.back() == '\n' ? "" : "\n");
}

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// --- Driving the front end ----------------------------------------------------------------------

bool parseOptions(const std::string &text, OptionsUse use, BuildOptions &options) {
  std::string error = parseBuildOptions(text, use, options);
  if (error.empty())
    return true;
  std::cerr << "kilnc: invalid options: " << error << "\n";
  return false;
}

std::optional<Bitcode> compileFile(Frontend &frontend, const std::string &path,
                                   const Arguments &args, const BuildOptions &options) {
  std::optional<std::string> source = readFile(path);
  if (!source) {
    std::cerr << "kilnc: cannot read " << path << "\n";
    return std::nullopt;
  }
  CompileResult result;
  for (int run = 0; run < args.repeat; ++run) {
    Clock::time_point start = Clock::now();
    result = frontend.compile(*source, args.headers, options, args.target);
    if (!args.quiet || args.repeat > 1)
      std::cout << "compile " << path << ": " << (result.success ? "ok" : "FAILED") << " in "
                << millisecondsSince(start) << " ms\n";
  }
  printLog("compile " + path, result.log);
  if (!result.success)
    return std::nullopt;
  return result.module;
}

std::optional<Bitcode> readBitcode(Frontend &frontend, const std::string &path,
                                   const Arguments &args) {
  std::optional<std::string> bytes = readFile(path);
  if (!bytes) {
    std::cerr << "kilnc: cannot read " << path << "\n";
    return std::nullopt;
  }
  Bitcode module(bytes->begin(), bytes->end());
  if (args.inspect) {
    ProgramInfo info;
    std::string error = frontend.inspect(module, args.link, info);
    std::cout << "inspect " << path << ": " << (error.empty() ? "ok" : error) << "\n";
    if (!error.empty())
      return std::nullopt;
    if (args.link && !args.quiet)
      printProgramInfo(info);
  }
  return module;
}

std::optional<LinkResult> linkModules(Frontend &frontend, const std::vector<Bitcode> &modules,
                                      const Arguments &args, const BuildOptions &options) {
  std::vector<const Bitcode *> inputs;
  for (const Bitcode &module : modules)
    inputs.push_back(&module);
  Clock::time_point start = Clock::now();
  LinkResult result = frontend.link(inputs, options, args.target);
  if (!args.quiet)
    std::cout << "link: " << (result.success ? "ok" : "FAILED") << " in "
              << millisecondsSince(start) << " ms\n";
  printLog("link", result.log);
  if (!result.success)
    return std::nullopt;
  if (!options.createLibrary && !args.quiet)
    printProgramInfo(result.info);
  return result;
}

std::optional<std::string> compilePtx(CompilerServices &services, const LinkResult &linked,
                                      const Arguments &args, const BuildOptions &options) {
  auto *ptxCompiler =
      static_cast<cuda::PtxCompiler *>(services.codeGenerator(cuda::PtxCompiler::kKind));
  if (ptxCompiler == nullptr) {
    std::cerr << "kilnc: the compiler library has no PTX code generator\n";
    return std::nullopt;
  }
  Clock::time_point start = Clock::now();
  cuda::PtxResult result = ptxCompiler->compile(linked.module, linked.info, args.ptxArchitecture,
                                                !options.optimizationsDisabled);
  if (!args.quiet)
    std::cout << "ptx for sm_" << args.ptxArchitecture << ": " << (result.success ? "ok" : "FAILED")
              << " in " << millisecondsSince(start) << " ms\n";
  if (!result.success) {
    std::cerr << "kilnc: " << result.error << "\n";
    return std::nullopt;
  }
  return result.ptx;
}

/// The compiled module `compiled` as SPIR-V, by LLVM's SPIR-V back end: Kiln's front end
/// produces SPIR64 IR, which that back end takes once retargeted to spirv64.
std::optional<Bitcode> emitSpirv(const Bitcode &compiled) {
  LLVMInitializeSPIRVTargetInfo();
  LLVMInitializeSPIRVTarget();
  LLVMInitializeSPIRVTargetMC();
  LLVMInitializeSPIRVAsmPrinter();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseModule(compiled, context);
  if (!module)
    return std::nullopt;
  llvm::Triple triple("spirv64-unknown-unknown");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) {
    std::cerr << "kilnc: no SPIR-V back end: " << error << "\n";
    return std::nullopt;
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, "", "", llvm::TargetOptions(), std::nullopt));
  module->setTargetTriple(triple);
  module->setDataLayout(machine->createDataLayout());
  llvm::SmallVector<char, 0> spirv;
  llvm::raw_svector_ostream stream(spirv);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    std::cerr << "kilnc: the SPIR-V back end cannot emit a module\n";
    return std::nullopt;
  }
  passes.run(*module);
  return Bitcode(spirv.begin(), spirv.end());
}

int run(const Arguments &args) {
  // clBuildProgram rules for one options set, or clCompileProgram + clLinkProgram.
  bool separateLink = args.linkOptions.has_value();
  BuildOptions compileOptions, linkOptions;
  OptionsUse compileUse = args.link && !separateLink ? OptionsUse::Build : OptionsUse::Compile;
  if (!parseOptions(args.options, compileUse, compileOptions))
    return 2;
  linkOptions = compileOptions;
  if (separateLink && !parseOptions(*args.linkOptions, OptionsUse::Link, linkOptions))
    return 2;

  Clock::time_point start = Clock::now();
  CompilerServices *services = loadServices();
  if (!services)
    return 2;
  Frontend &frontend = services->frontend();
  if (!args.quiet)
    std::cout << "loaded the compiler library in " << millisecondsSince(start) << " ms\n";

  std::vector<Bitcode> modules;
  bool ok = true;
  for (const std::string &input : args.inputs) {
    bool isBitcode = input.size() > 3 && input.ends_with(".bc");
    std::optional<Bitcode> module = isBitcode ? readBitcode(frontend, input, args)
                                              : compileFile(frontend, input, args, compileOptions);
    ok = ok && module.has_value();
    if (module)
      modules.push_back(std::move(*module));
  }
  if (!ok)
    return 1;
  std::optional<Bitcode> result;
  if (args.link && !args.inspect) {
    std::optional<LinkResult> linked = linkModules(frontend, modules, args, linkOptions);
    if (linked && args.ptxArchitecture != 0) {
      std::optional<std::string> ptx = compilePtx(*services, *linked, args, linkOptions);
      if (!ptx)
        return 1;
      result = Bitcode(ptx->begin(), ptx->end());
      if (args.output.empty() && !args.quiet)
        std::cout << *ptx;
    } else if (linked) {
      result = std::move(linked->module);
    }
  } else if (modules.size() == 1 && args.spirv) {
    if (!(result = emitSpirv(modules.front())))
      return 1;
  } else if (modules.size() == 1) {
    result = std::move(modules.front());
  }
  if (!result)
    return args.link && !args.inspect ? 1 : 0;
  if (args.emitLlvm && !args.spirv)
    printIr(*result);
  if (!args.output.empty() && !writeFile(args.output, *result)) {
    std::cerr << "kilnc: cannot write " << args.output << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Arguments args;
  if (!parseArguments(argc, argv, args))
    return 2;
  return run(args);
}
