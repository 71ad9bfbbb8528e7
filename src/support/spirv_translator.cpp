#include "support/spirv_translator.hpp"

#include "support/settings.hpp"
#include "support/shared_object_folder.hpp"

#include <unistd.h>

namespace kiln {
namespace {

bool isExecutable(const std::string &path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

} // namespace

std::optional<std::string> spirvTranslatorPath() {
  if (std::optional<std::string_view> configured = settingValue(Setting::SpirvTranslator)) {
    std::string path(*configured);
    return isExecutable(path) ? std::optional(path) : std::nullopt;
  }
  for (std::string candidate :
       {sharedObjectFolder(reinterpret_cast<const void *>(&spirvTranslatorPath)) + "llvm-spirv",
        std::string(KILN_SPIRV_TRANSLATOR)})
    if (isExecutable(candidate))
      return candidate;
  return std::nullopt;
}

} // namespace kiln
