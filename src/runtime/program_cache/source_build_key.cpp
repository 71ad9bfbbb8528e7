#include "runtime/program_cache/source_build_key.hpp"

#include "runtime/device_driver.hpp"
#include "runtime/objects/platform.hpp"

#include <algorithm>

namespace kiln {
namespace {

/// Skips blanks and line continuations from `position`.
size_t skipBlanks(std::string_view source, size_t position) {
  while (position < source.size()) {
    if (source[position] == ' ' || source[position] == '\t')
      ++position;
    else if (source.substr(position).starts_with("\\\n"))
      position += 2;
    else
      break;
  }
  return position;
}

/// Whether a preprocessor directive of the source may read a file: #include (#include_next,
/// #import) or #embed, or the __has_include and __has_embed operators. Errs on the side of
/// yes: a `#` anywhere (in a comment too) followed by one of those names counts.
bool sourceMayReadFiles(std::string_view source) {
  if (source.find("__has_include") != std::string_view::npos ||
      source.find("__has_embed") != std::string_view::npos)
    return true;
  for (size_t hash = source.find('#'); hash != std::string_view::npos;
       hash = source.find('#', hash + 1)) {
    std::string_view directive = source.substr(skipBlanks(source, hash + 1));
    if (directive.starts_with("include") || directive.starts_with("import") ||
        directive.starts_with("embed"))
      return true;
  }
  return false;
}

bool optionsNameIncludeFolders(const compiler::BuildOptions &parsed) {
  return std::any_of(parsed.frontendArgs.begin(), parsed.frontendArgs.end(),
                     [](const std::string &arg) { return arg.starts_with("-I"); });
}

} // namespace

std::optional<CacheKey> sourceBuildKey(std::string_view buildIdentity, std::string_view source,
                                       std::string_view options,
                                       const compiler::BuildOptions &parsed,
                                       const DeviceDriver &device) {
  if (buildIdentity.empty() || optionsNameIncludeFolders(parsed) || sourceMayReadFiles(source))
    return std::nullopt;
  CacheKey key;
  key.add("clBuildProgram from source").add(kilnVersion()).add(buildIdentity).add(llvmVersion());
  const compiler::TargetDescription &target = device.compilerTarget();
  key.add(target.triple).add(target.languageVersions.size());
  for (cl_version version : target.languageVersions)
    key.add(version);
  key.add(target.extensions.size());
  for (const std::string &extension : target.extensions)
    key.add(extension);
  key.add(target.features.size());
  for (const std::string &feature : target.features)
    key.add(feature);
  key.add(uint64_t{target.inlineAssembly}).add(target.inlineAssemblyRegisterClasses);
  key.add(device.codeIdentity()).add(options).add(source);
  return key;
}

} // namespace kiln
