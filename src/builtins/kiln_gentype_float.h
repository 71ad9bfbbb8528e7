// Includes the template file KILN_TEMPLATE for float and double (and half, where the includer
// defines KILN_GENTYPE_HALF), each at every width (see
// kiln_gentype.h). Besides S, N and T, the template gets:
//   SI, SU   the signed and unsigned integer scalar types of the size of S
//   IT, UT   the vectors of SI and SU of width N (as_IT reinterprets a T as an IT)
//   RT       what a relational function returns: int for scalars, IT for vectors
//   KILN_MANT_BITS, KILN_EXP_BIAS, KILN_EXP_MASK (the exponent field, unshifted),
//   KILN_SIGN_MASK (the sign bit, as SI), KILN_ONE_BELOW (the largest value below 1),
//   KILN_MIN_NORMAL (the smallest normal value), KILN_SUBNORMAL_SCALE (a power of two,
//   2^KILN_SUBNORMAL_SCALE_BITS, that brings every subnormal into the normal range)
#define IT KILN_VT(SI, N)
#define UT KILN_VT(SU, N)
#define RT KILN_RELATIONAL_T(SI, N)
#define KILN_RELATIONAL_T(SI, N) KILN_RELATIONAL_T_I(SI, N)
#define KILN_RELATIONAL_T_I(SI, N) KILN_RELATIONAL_T_##N(SI)
#define KILN_RELATIONAL_T_1(SI) int
#define KILN_RELATIONAL_T_2(SI) SI##2
#define KILN_RELATIONAL_T_3(SI) SI##3
#define KILN_RELATIONAL_T_4(SI) SI##4
#define KILN_RELATIONAL_T_8(SI) SI##8
#define KILN_RELATIONAL_T_16(SI) SI##16
#define as_IT(x) __builtin_astype((x), IT)
#define as_UT(x) __builtin_astype((x), UT)
#define as_T(x) __builtin_astype((x), T)

#define S float
#define SI int
#define SU uint
#define KILN_MANT_BITS 23
#define KILN_EXP_BIAS 127
#define KILN_EXP_MASK 0x7f800000
#define KILN_SIGN_MASK INT_MIN
#define KILN_ONE_BELOW 0x1.fffffep-1f
#define KILN_MIN_NORMAL FLT_MIN
#define KILN_SUBNORMAL_SCALE 0x1p64f
#define KILN_SUBNORMAL_SCALE_BITS 64
#include "kiln_gentype_float_one.h"

#define S double
#define SI long
#define SU ulong
#define KILN_MANT_BITS 52
#define KILN_EXP_BIAS 1023
#define KILN_EXP_MASK 0x7ff0000000000000L
#define KILN_SIGN_MASK LONG_MIN
#define KILN_ONE_BELOW 0x1.fffffffffffffp-1
#define KILN_MIN_NORMAL DBL_MIN
#define KILN_SUBNORMAL_SCALE 0x1p64
#define KILN_SUBNORMAL_SCALE_BITS 64
#include "kiln_gentype_float_one.h"

// half (cl_khr_fp16) for the includers that define KILN_GENTYPE_HALF.
#ifdef KILN_GENTYPE_HALF
#define S half
#define SI short
#define SU ushort
#define KILN_MANT_BITS 10
#define KILN_EXP_BIAS 15
#define KILN_EXP_MASK 0x7c00
#define KILN_SIGN_MASK SHRT_MIN
#define KILN_ONE_BELOW 0x1.ffcp-1h
#define KILN_MIN_NORMAL HALF_MIN
#define KILN_SUBNORMAL_SCALE 0x1p10h
#define KILN_SUBNORMAL_SCALE_BITS 10
#include "kiln_gentype_float_one.h"
#endif

#undef IT
#undef UT
#undef RT
#undef as_IT
#undef as_UT
#undef as_T
