// cl_khr_command_buffer_mutable_dispatch (version 0.9.5): kernel commands of a command buffer
// whose arguments and work sizes change between runs.
#pragma once

#include "runtime/objects/command_buffer.hpp"

#include <string_view>

namespace kiln::api {

/// The handle of the kernel command just recorded at `index` of `buffer`, which updates may
/// change in the fields `updatable`; `properties` as the application gave them.
/// `awaitsArguments`: recorded (as a placeholder) before all of `kernel`'s arguments were set.
MutableCommand &recordMutableCommand(CommandBuffer &buffer, size_t index, Kernel &kernel,
                                     cl_mutable_dispatch_fields_khr updatable,
                                     std::vector<cl_command_properties_khr> properties,
                                     bool awaitsArguments, cl_uint workDim, const size_t *offset,
                                     const size_t *global, const size_t *local);

/// The extension's entry point called `name`, or null.
void *mutableDispatchFunction(std::string_view name);

} // namespace kiln::api
