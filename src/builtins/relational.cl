// Relational functions (OpenCL C 3.0 section 6.15.6).
#include "kiln_internal.h"

// Also for half (cl_khr_fp16).
#define KILN_GENTYPE_HALF

#define KILN_TEMPLATE "relational_gentype.h"
#include "kiln_gentype_float.h"
#undef KILN_TEMPLATE

#define KILN_TEMPLATE "relational_integer.h"
#include "kiln_gentype_int.h"
#undef KILN_TEMPLATE
