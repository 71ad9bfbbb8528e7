#include "compiler/llvm/spirv_reader.hpp"

#include "compiler/llvm/translated_module_adaptation.hpp"
#include "compiler/spirv_capabilities.hpp"
#include "compiler/spirv_translator_input.hpp"
#include "support/child_process.hpp"
#include "support/settings.hpp"
#include "support/spirv_translator.hpp"
#include "support/temporary_directory.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <spirv-tools/libspirv.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace kiln::compiler {
namespace {

/// The validator's rules for the module's own SPIR-V version.
spv_target_env validationEnvironment(uint32_t version) {
  switch (version) {
  case spirvVersion(1, 0):
    return SPV_ENV_UNIVERSAL_1_0;
  case spirvVersion(1, 1):
    return SPV_ENV_UNIVERSAL_1_1;
  case spirvVersion(1, 2):
    return SPV_ENV_UNIVERSAL_1_2;
  case spirvVersion(1, 3):
    return SPV_ENV_UNIVERSAL_1_3;
  case spirvVersion(1, 4):
    return SPV_ENV_UNIVERSAL_1_4;
  case spirvVersion(1, 5):
    return SPV_ENV_UNIVERSAL_1_5;
  default:
    return SPV_ENV_UNIVERSAL_1_6;
  }
}

/// SPIRV-Tools' validator on `module`; false with its diagnostic in `log` when it is invalid.
bool validate(const SpirvModule &module, std::string &log) {
  spv_context context = spvContextCreate(validationEnvironment(module.version()));
  spv_const_binary_t binary{module.words().data(), module.words().size()};
  spv_diagnostic diagnostic = nullptr;
  spv_result_t result = spvValidate(context, &binary, &diagnostic);
  if (result != SPV_SUCCESS) {
    log += "error: the SPIR-V module is not valid";
    if (diagnostic != nullptr && diagnostic->error != nullptr)
      log += std::string(": ") + diagnostic->error;
    log += "\n";
  }
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return result == SPV_SUCCESS;
}

/// Whether `target` reads the module's SPIR-V version; otherwise a line in `log`.
bool versionAccepted(const SpirvModule &module, const TargetDescription &target, std::string &log) {
  if (std::ranges::find(target.spirvVersions, module.clVersion()) != target.spirvVersions.end())
    return true;
  log += "error: the module is " + spirvVersionName(module.version()) +
         ", which this device does not read (CL_DEVICE_ILS_WITH_VERSION lists what it does)\n";
  return false;
}

bool writeFile(const std::string &path, std::span<const uint32_t> words) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(words.data()),
            static_cast<std::streamsize>(words.size_bytes()));
  return static_cast<bool>(out.flush());
}

/// The translator's LLVM 15 bitcode for `module`; empty, with the reason in `log`, on failure.
std::vector<char> translate(const SpirvModule &module, std::string &log) {
  std::optional<std::string> translator = spirvTranslatorPath();
  if (!translator) {
    log += "error: no SPIR-V translator: KILN_SPIRV_TRANSLATOR";
    log += settingValue(Setting::SpirvTranslator)
               ? " (" + std::string(*settingValue(Setting::SpirvTranslator)) +
                     ") is not an executable file\n"
               : " is not set and the llvm-spirv Kiln was built with is not installed\n";
    return {};
  }
  std::string error;
  std::optional<TemporaryDirectory> directory = TemporaryDirectory::create(error);
  if (!directory) {
    log += "error: " + error + "\n";
    return {};
  }
  std::string input = directory->file("module.spv");
  std::string output = directory->file("module.bc");
  if (!writeFile(input, module.words())) {
    log += "error: cannot write the module for the SPIR-V translator to " + input + "\n";
    return {};
  }
  // CL2.0: OpenCL C 2.0 builtins (atomics with scopes, ...) rather than 1.2 ones.
  ChildResult run =
      runChildProcess(*translator, {"-r", "--spirv-target-env=CL2.0", input, "-o", output});
  std::ifstream in(output, std::ios::binary);
  std::vector<char> bitcode(std::istreambuf_iterator<char>(in), {});
  if (!run.succeeded || bitcode.empty()) {
    log += "error: the SPIR-V translator (" + *translator + ") " + run.ending +
           " and could not translate the module";
    log += run.output.empty() ? "\n" : ":\n" + run.output;
    if (!log.empty() && log.back() != '\n')
      log += '\n';
    return {};
  }
  return bitcode;
}

} // namespace

std::unique_ptr<llvm::Module> readSpirv(std::span<const uint8_t> il,
                                        const SpecializationValues &values,
                                        const TargetDescription &target, llvm::LLVMContext &context,
                                        std::string &log) {
  std::string error;
  std::optional<SpirvModule> module = SpirvModule::read(il, error);
  if (!module) {
    log += "error: " + error + "\n";
    return nullptr;
  }
  if (!versionAccepted(*module, target, log) || !validate(*module, log))
    return nullptr;
  if (std::string missing = unsupportedCapabilities(*module, target); !missing.empty()) {
    log += missing;
    return nullptr;
  }
  std::vector<char> bitcode = translate(rewriteForTranslator(module->specialized(values)), log);
  if (bitcode.empty())
    return nullptr;
  llvm::Expected<std::unique_ptr<llvm::Module>> translated = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "SPIR-V module"),
      context);
  if (!translated) {
    log += "error: the SPIR-V translator's output cannot be read: " +
           llvm::toString(translated.takeError()) + "\n";
    return nullptr;
  }
  if (!adaptTranslatedModule(**translated, log))
    return nullptr;
  llvm::raw_string_ostream logStream(log);
  if (llvm::verifyModule(**translated, &logStream)) {
    log += "error: the SPIR-V translator produced an invalid module\n";
    return nullptr;
  }
  return std::move(*translated);
}

} // namespace kiln::compiler
