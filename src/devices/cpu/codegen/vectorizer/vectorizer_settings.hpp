//===- vectorizer_settings.hpp - The work-item vectorizer's switches ------===//
#pragma once

#include "support/settings.hpp"

#include "llvm/Support/MathExtras.h"

#include <cstdlib>
#include <string>
#include <string_view>

namespace kiln::cpu {

/// The work-item vectorizer's switches, read from the environment at each build:
/// KILN_VECTORIZE=0 keeps every kernel scalar, KILN_SIMD_WIDTH=N (2 to 128, a power of two)
/// chooses the lanes of every SIMD group (sub-groups stay at most 64 wide), KILN_VECTORIZE_REPORT
/// prints what happened to each kernel.
struct VectorizerSettings {
  bool enabled = true;
  unsigned width = 0; // 0: the target's choice
  bool report = false;

  static VectorizerSettings fromEnvironment() {
    VectorizerSettings settings;
    settings.enabled = settingEnabled(Setting::Vectorize, true);
    if (std::optional<std::string_view> width = settingValue(Setting::SimdWidth)) {
      unsigned value =
          static_cast<unsigned>(std::strtoul(std::string(*width).c_str(), nullptr, 10));
      if (value >= 2 && value <= 128 && llvm::isPowerOf2_32(value))
        settings.width = value;
    }
    settings.report = settingValue(Setting::VectorizeReport).has_value();
    return settings;
  }
};

} // namespace kiln::cpu
