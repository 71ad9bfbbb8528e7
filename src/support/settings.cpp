//===- settings.cpp - The KILN_* environment variables ----------------------===//
#include "support/settings.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace kiln {
namespace {

constexpr std::array kSettings = {
    SettingInfo{Setting::DeviceTypes, "KILN_DEVICE_TYPES",
                "the kinds of device the platform lists, `cpu` and/or `gpu` separated by commas; "
                "default: every kind this machine has"},
    SettingInfo{Setting::CpuThreads, "KILN_CPU_THREADS",
                "worker threads of the CPU device (and its compute units); default: one per core "
                "the process may use"},
    SettingInfo{Setting::CompilerLibrary, "KILN_COMPILER_LIBRARY",
                "path of `libkiln-compiler.so`; default: next to `libkiln.so`"},
    SettingInfo{Setting::Vectorize, "KILN_VECTORIZE",
                "`0` runs every kernel one work-item at a time (the work-item vectorizer off); "
                "default: on",
                true},
    SettingInfo{Setting::SimdWidth, "KILN_SIMD_WIDTH",
                "work-items per SIMD group of the vectorizer, for every kernel: 2, 4, 8, 16, 32, "
                "64 or 128 (sub-groups at most 64); default: chosen per kernel and local size, "
                "the 32-bit lanes of the CPU's preferred vectors (16 with AVX-512) times 2 or 4 "
                "when the kernel's values leave room in the vector registers (up to 64 lanes, as "
                "many as the registers hold, for kernels whose loops only compute, such as "
                "clpeak's, and for loops that read with a stride known at run time, 128 of them "
                "with AVX-512), then the widest of those that divides the local size along "
                "dimension 0, or at most the local size",
                true},
    SettingInfo{Setting::VectorizeReport, "KILN_VECTORIZE_REPORT",
                "when set at build, print for each work-group function the CPU device compiles "
                "(one per kernel and local size, when first enqueued) whether it was vectorized "
                "and how wide, or why not, the size of its code in lanes beside one "
                "work-item's, and the loops that may wait for another sub-group (to stderr)",
                true},
    SettingInfo{Setting::PrintIr, "KILN_PRINT_IR",
                "when set, print the optimized LLVM IR of each work-group function the CPU device "
                "compiles, and of each program the GPU device compiles (to stderr)"},
    SettingInfo{Setting::CudaDeviceLaunch, "KILN_CUDA_DEVICE_LAUNCH",
                "`0` leaves every kernel a GPU kernel enqueues to the host, which starts it once "
                "the parent has finished; default: the GPU starts those it can itself (CUDA's "
                "dynamic parallelism)",
                false, true},
    SettingInfo{Setting::Cache, "KILN_CACHE",
                "`0` turns the on-disk program cache off; default: on"},
    SettingInfo{Setting::CacheDir, "KILN_CACHE_DIR",
                "the folder of the on-disk program cache; default: `$XDG_CACHE_HOME/kiln`, else "
                "`$HOME/.cache/kiln`"},
    SettingInfo{Setting::CacheMaxSize, "KILN_CACHE_MAX_SIZE",
                "the size the cache folder is kept within, in bytes or with a `K`, `M` or `G` "
                "suffix; default: `256M`"},
    SettingInfo{Setting::SpirvTranslator, "KILN_SPIRV_TRANSLATOR",
                "path of the Khronos SPIR-V translator (`llvm-spirv`, LLVM 15) that reads "
                "SPIR-V programs; default: an `llvm-spirv` next to `libkiln.so`, else the one "
                "the build found (Debian's `llvm-spirv-15`); devices list SPIR-V only where "
                "there is one"},
};

} // namespace

std::span<const SettingInfo> allSettings() {
  return kSettings;
}

const SettingInfo &settingInfo(Setting setting) {
  return *std::find_if(kSettings.begin(), kSettings.end(),
                       [&](const SettingInfo &info) { return info.setting == setting; });
}

std::optional<std::string_view> environmentValue(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? std::optional<std::string_view>(value) : std::nullopt;
}

std::optional<std::string_view> settingValue(Setting setting) {
  return environmentValue(settingInfo(setting).name.data());
}

std::string settingsIdentity(bool SettingInfo::*changes) {
  std::string identity;
  for (const SettingInfo &setting : allSettings())
    if (setting.*changes)
      identity += std::string("|") + std::string(setting.name) + "=" +
                  std::string(settingValue(setting.setting).value_or("(unset)"));
  return identity;
}

bool settingEnabled(Setting setting, bool byDefault) {
  std::optional<std::string_view> value = settingValue(setting);
  if (!value)
    return byDefault;
  return !(*value == "0" || *value == "off" || *value == "false" || *value == "no");
}

} // namespace kiln
