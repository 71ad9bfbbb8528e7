// The folder a shared library was loaded from, found from an address inside it.
#pragma once

#include <string>

namespace kiln {

/// The folder of the shared object that contains `address`, with a trailing slash; empty when
/// it cannot be told.
std::string sharedObjectFolder(const void *address);

} // namespace kiln
