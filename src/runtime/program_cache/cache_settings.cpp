#include "runtime/program_cache/cache_settings.hpp"

#include "support/settings.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string_view>

namespace kiln {
namespace {

/// The cache folder the environment names; empty when there is none.
std::string cacheDirectory() {
  if (std::string_view chosen = settingValue(Setting::CacheDir).value_or(""); !chosen.empty())
    return std::string(chosen);
  // The XDG base directory specification ignores relative paths.
  if (std::string_view xdg = environmentValue("XDG_CACHE_HOME").value_or(""); xdg.starts_with('/'))
    return std::string(xdg) + "/kiln";
  if (std::string_view home = environmentValue("HOME").value_or(""); !home.empty())
    return std::string(home) + "/.cache/kiln";
  return {};
}

} // namespace

std::optional<uint64_t> parseCacheSize(const std::string &text) {
  uint64_t value = 0;
  const char *end = text.data() + text.size();
  auto [rest, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || rest == text.data())
    return std::nullopt;
  unsigned shift = 0;
  if (rest != end) {
    switch (std::toupper(static_cast<unsigned char>(*rest++))) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      return std::nullopt;
    }
  }
  if (rest != end || value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

std::optional<CacheSettings> cacheSettingsFromEnvironment() {
  if (!settingEnabled(Setting::Cache, true))
    return std::nullopt;
  CacheSettings settings;
  settings.directory = cacheDirectory();
  if (settings.directory.empty())
    return std::nullopt;
  std::string_view size = settingValue(Setting::CacheMaxSize).value_or("");
  settings.maxSize = parseCacheSize(std::string(size)).value_or(kDefaultCacheMaxSize);
  return settings;
}

} // namespace kiln
