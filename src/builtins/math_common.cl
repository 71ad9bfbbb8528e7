// The math functions (OpenCL C 3.0 section 6.15.2) that are exact operations, for float and
// double of every width: see math_gentype.h.
#include "kiln_internal.h"

#define KILN_TEMPLATE "math_gentype.h"
#include "kiln_gentype_float.h"
