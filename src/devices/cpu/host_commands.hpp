// The memory commands (read, write, copy, fill, rectangles, native kernels) carried out on host
// memory, where every buffer of the CPU device lives.
#pragma once

#include "runtime/command.hpp"

namespace kiln::cpu {

/// Carries out any payload except a kernel launch. Returns CL_COMPLETE or an error.
cl_int executeHostCommand(CommandPayload &payload);

} // namespace kiln::cpu
