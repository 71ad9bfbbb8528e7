// The entry points of cl_khr_command_buffer, which applications reach only through
// clGetExtensionFunctionAddressForPlatform: their 0.9.8 signatures differ from the older ones
// Debian's headers declare, so they are not exported under their names.
#pragma once

#include <string_view>

namespace kiln::api {

/// The entry point called `name`, or null when it is not one of the extension's.
void *commandBufferFunction(std::string_view name);

} // namespace kiln::api
