// The SPIR-V capabilities a device must have a feature or an extension for: a module declaring
// one its device lacks is refused with a build log, before anything translates it.
#pragma once

#include "compiler/frontend.hpp"
#include "compiler/spirv_module.hpp"

#include <string>

namespace kiln::compiler {

/// One line per capability `module` declares that `target` cannot run; empty when none.
std::string unsupportedCapabilities(const SpirvModule &module, const TargetDescription &target);

} // namespace kiln::compiler
