// Part of kiln_gentype_float.h: includes the template for the floating-point type whose
// properties (S, SI, SU, KILN_MANT_BITS, ...) the includer defined, then forgets them.
#include "kiln_gentype.h"
#undef S
#undef SI
#undef SU
#undef KILN_MANT_BITS
#undef KILN_EXP_BIAS
#undef KILN_EXP_MASK
#undef KILN_SIGN_MASK
#undef KILN_ONE_BELOW
#undef KILN_MIN_NORMAL
#undef KILN_SUBNORMAL_SCALE
#undef KILN_SUBNORMAL_SCALE_BITS
