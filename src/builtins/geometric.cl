// Geometric functions (OpenCL C 3.0 section 6.15.5) for float and double of widths 1 to 4.
#include "kiln_internal.h"

#define KILN_TEMPLATE "geometric_gentype.h"
#include "kiln_gentype_float.h"
