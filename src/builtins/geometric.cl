// Geometric functions (OpenCL C 3.0 section 6.15.5) for float and double of widths 1 to 4.
#include "kiln_internal.h"

// Also for half (cl_khr_fp16).
#define KILN_GENTYPE_HALF

#define KILN_TEMPLATE "geometric_gentype.h"
#include "kiln_gentype_float.h"
