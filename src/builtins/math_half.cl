// The half math functions (cl_khr_fp16) that math_common.cl does not write once for every
// floating-point type: each computes the float function and rounds its result to half. Every
// half converts to float exactly, so the edge cases (zeros, infinities, NaNs, poles) carry over;
// the float functions stay within a few float ulps, about 2^-13 of a half ulp, so the half
// results are within about half an ulp, far inside the specification's bounds for half. The
// exact ones (remainder, remquo) stay exact: their float results are halves.
#include "kiln_internal.h"

#define KILN_VIA_FLOAT1(F)                                                                         \
  OVL half F(half x) {                                                                             \
    return (half)F((float)x);                                                                      \
  }                                                                                                \
  KILN_SPLIT1(half, F, half)
#define KILN_VIA_FLOAT2(F, BT, BF)                                                                 \
  OVL half F(half x, BT y) {                                                                       \
    return (half)F((float)x, (BF)y);                                                               \
  }                                                                                                \
  KILN_SPLIT2(half, F, half, BT)

KILN_VIA_FLOAT1(acosh)
KILN_VIA_FLOAT1(asinh)
KILN_VIA_FLOAT1(atanh)
KILN_VIA_FLOAT1(acospi)
KILN_VIA_FLOAT1(asinpi)
KILN_VIA_FLOAT1(atanpi)
KILN_VIA_FLOAT1(cbrt)
KILN_VIA_FLOAT1(cospi)
KILN_VIA_FLOAT1(sinpi)
KILN_VIA_FLOAT1(tanpi)
KILN_VIA_FLOAT1(erf)
KILN_VIA_FLOAT1(erfc)
KILN_VIA_FLOAT1(expm1)
KILN_VIA_FLOAT1(log1p)
KILN_VIA_FLOAT1(lgamma)
KILN_VIA_FLOAT1(tgamma)
KILN_VIA_FLOAT1(rsqrt)
KILN_VIA_FLOAT2(atan2pi, half, float)
KILN_VIA_FLOAT2(hypot, half, float)
KILN_VIA_FLOAT2(powr, half, float)
KILN_VIA_FLOAT2(remainder, half, float)
KILN_VIA_FLOAT2(pown, int, int)
KILN_VIA_FLOAT2(rootn, int, int)

OVL half remquo(half x, half y, __private int *quo) {
  return (half)remquo((float)x, (float)y, quo);
}
KILN_PTR2_SPLIT(half, remquo, half, half, int)

OVL half lgamma_r(half x, __private int *signp) {
  return (half)lgamma_r((float)x, signp);
}
KILN_PTR_SPLIT(half, lgamma_r, half, int)

OVL half sincos(half x, __private half *cosval) {
  float c;
  half s = (half)sincos((float)x, &c);
  *cosval = (half)c;
  return s;
}
KILN_PTR_SPLIT(half, sincos, half, half)

#undef KILN_VIA_FLOAT1
#undef KILN_VIA_FLOAT2
