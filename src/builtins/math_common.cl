// The math functions (OpenCL C 3.0 section 6.15.2) that are written once for float and double
// of every width: the exact operations (math_gentype.h) and those that are LLVM intrinsics
// (math_elementwise_gentype.h). math_float.cl and math_double.cl have the others.
#include "kiln_internal.h"

// Also for half (cl_khr_fp16).
#define KILN_GENTYPE_HALF

#define KILN_TEMPLATE "math_gentype.h"
#include "kiln_gentype_float.h"
#undef KILN_TEMPLATE

#define KILN_TEMPLATE "math_elementwise_gentype.h"
#include "kiln_gentype_float.h"
