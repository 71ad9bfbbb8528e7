// The on-disk cache key of a clBuildProgram from source: everything its result depends on.
#pragma once

#include "compiler/build_options.hpp"
#include "runtime/program_cache/cache_key.hpp"

#include <optional>
#include <string_view>

namespace kiln {

class DeviceDriver;

/// The key of building `source` with `options` (as the application gave them; `parsed` is
/// their parse) for `device`, with Kiln's and LLVM's versions and `buildIdentity` (see
/// Platform::buildIdentity()). Null when the build cannot be cached: it may read files the key
/// does not cover (an -I folder, or #include, #embed or __has_include in the source, which find
/// files next to the application).
std::optional<CacheKey> sourceBuildKey(std::string_view buildIdentity, std::string_view source,
                                       std::string_view options,
                                       const compiler::BuildOptions &parsed,
                                       const DeviceDriver &device);

} // namespace kiln
