// The memory commands (read, write, copy, fill, rectangles, native kernels) carried out on host
// memory, where every buffer lives: the CPU device uses them directly, and a GPU device uses them
// for memory it shares with the host.
#pragma once

#include "runtime/command.hpp"

namespace kiln {

/// Carries out any payload except a kernel launch. Returns CL_COMPLETE or an error.
cl_int executeHostCommand(CommandPayload &payload);

} // namespace kiln
