// The host's monotonic clock in nanoseconds: the clock of profiling info and
// clGetDeviceAndHostTimer, and of the CPU device's short deadlines.
#pragma once

#include <CL/cl.h>

namespace kiln {

cl_ulong monotonicNanoseconds();

} // namespace kiln
