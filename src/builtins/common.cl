// Common functions (OpenCL C 3.0 section 6.15.4) for float and double; the integer max, min
// and clamp are in integer.cl.
#include "kiln_internal.h"

// Also for half (cl_khr_fp16).
#define KILN_GENTYPE_HALF

#define KILN_TEMPLATE "common_gentype.h"
#include "kiln_gentype_float.h"
