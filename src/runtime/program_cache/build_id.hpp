// The GNU build ID of a shared library: a hash of its contents the linker writes into an ELF
// note (--build-id). Kiln's libraries carry one, and the on-disk program cache keys entries on
// them, so a Kiln built from different code never reads what another build cached.
#pragma once

#include <string>

namespace kiln {

/// The build ID of the ELF file at `path` in hex; empty when it cannot be read or has none.
std::string readBuildId(const std::string &path);

/// The build ID of the loaded object (the executable or a shared library) whose code holds
/// `address`: the code running now, even if its file has been replaced since it was loaded.
std::string loadedBuildId(const void *address);

} // namespace kiln
