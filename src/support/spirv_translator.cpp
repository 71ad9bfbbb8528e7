#include "support/spirv_translator.hpp"

#include "support/settings.hpp"

#include <dlfcn.h>
#include <unistd.h>

namespace kiln {
namespace {

/// The folder of the shared library this function is in, with a trailing slash.
std::string ownFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&ownFolder), &info) == 0 || info.dli_fname == nullptr)
    return {};
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool isExecutable(const std::string &path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

} // namespace

std::optional<std::string> spirvTranslatorPath() {
  if (std::optional<std::string_view> configured = settingValue(Setting::SpirvTranslator)) {
    std::string path(*configured);
    return isExecutable(path) ? std::optional(path) : std::nullopt;
  }
  for (std::string candidate : {ownFolder() + "llvm-spirv", std::string(KILN_SPIRV_TRANSLATOR)})
    if (isExecutable(candidate))
      return candidate;
  return std::nullopt;
}

} // namespace kiln
