//===- settings.hpp - The KILN_* environment variables ----------------------===//
//
// Every setting Kiln takes from the environment, in one table: its name and what it does.
// README.md's configuration table is this table (tests/runtime/settings_table_test.cpp checks
// it), and every setting, like every other variable Kiln reads from the environment, is read
// here. Settings are read when they are used (at each build, at each platform start), so a
// process may change them between builds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kiln {

enum class Setting {
  DeviceTypes,
  CpuThreads,
  CompilerLibrary,
  Vectorize,
  SimdWidth,
  VectorizeReport,
  PrintIr,
  CudaDeviceLaunch,
  Cache,
  CacheDir,
  CacheMaxSize,
  SpirvTranslator,
};

struct SettingInfo {
  Setting setting;
  std::string_view name;    // the environment variable
  std::string_view meaning; // its values, its default and what it does (README's wording)
  /// Whether it changes the code the CPU device generates: the program cache keys on it.
  bool changesCpuCode = false;
  /// Whether it changes the code the GPU device generates: the program cache keys on it.
  bool changesGpuCode = false;
};

/// The table, in README's order.
std::span<const SettingInfo> allSettings();

const SettingInfo &settingInfo(Setting setting);

/// The setting's value, or nothing when it is not set.
std::optional<std::string_view> settingValue(Setting setting);

/// Whether a switch is on: unset gives `byDefault`; "0", "off", "false" and "no" turn it off,
/// any other value on.
bool settingEnabled(Setting setting, bool byDefault);

/// "|NAME=value" (or "=(unset)") for each setting whose `changes` flag is set (&SettingInfo::
/// changesCpuCode or changesGpuCode): the part of a device's code identity settings decide.
std::string settingsIdentity(bool SettingInfo::*changes);

/// A variable of the environment that is not Kiln's own (HOME, XDG_CACHE_HOME), or nothing.
std::optional<std::string_view> environmentValue(const char *name);

} // namespace kiln
