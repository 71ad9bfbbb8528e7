// The float math functions (OpenCL C 3.0 section 6.15.2) that are neither exact operations
// nor LLVM intrinsics (those are in math_common.cl). Each is written for scalars; the vector
// overloads apply it per component.
//
// Where glibc's float function meets the accuracy the specification asks for (section 7.4) it
// is called; where the function has no C counterpart or its edge cases differ, the result is
// computed in double, whose range and precision make the float result correctly rounded in
// practice (the double functions are in math_double.cl).
#include "host_math.h"
#include "kiln_internal.h"

// glibc: cbrtf 1 ulp (2 allowed), erff 1 (16), erfcf 3 (16), expm1f 1 (3), log1pf 1 (2),
// hypotf 1 (4), acoshf 2 (4), asinhf 2 (4), atanhf 2 (5), tgammaf 7 (16); remainderf is exact.
KILN_HOST1(float, cbrt, libm_cbrtf)
KILN_HOST1(float, erf, libm_erff)
KILN_HOST1(float, erfc, libm_erfcf)
KILN_HOST1(float, expm1, libm_expm1f)
KILN_HOST1(float, log1p, libm_log1pf)
KILN_HOST2(float, hypot, libm_hypotf)
KILN_HOST1(float, acosh, libm_acoshf)
KILN_HOST1(float, asinh, libm_asinhf)
KILN_HOST1(float, atanh, libm_atanhf)
KILN_HOST1(float, tgamma, libm_tgammaf)
KILN_HOST2(float, remainder, libm_remainderf)

// The double versions have the specification's edge cases; rounding their nearly correctly
// rounded results to float keeps them (+-0, +-0.5, +-inf, ... are floats too).
OVL float acospi(float x) {
  return (float)acospi((double)x);
}
OVL float asinpi(float x) {
  return (float)asinpi((double)x);
}
OVL float atanpi(float x) {
  return (float)atanpi((double)x);
}
OVL float atan2pi(float y, float x) {
  return (float)atan2pi((double)y, (double)x);
}
OVL float sinpi(float x) {
  return (float)sinpi((double)x);
}
OVL float cospi(float x) {
  return (float)cospi((double)x);
}
OVL float tanpi(float x) {
  return (float)tanpi((double)x);
}
OVL float pown(float x, int n) {
  return (float)pown((double)x, n);
}
OVL float rootn(float x, int n) {
  return (float)rootn((double)x, n);
}
// Two correctly rounded float operations: at most 1.49 ulp from 1/sqrt(x) over every float
// (checked exhaustively against double), within the 2 ulp the specification allows, and the
// cheapest form in SIMD lanes (the double computation costs twice the lanes).
OVL float rsqrt(float x) {
  return 1.0f / __builtin_sqrtf(x);
}
KILN_SPLIT1(float, acospi, float)
KILN_SPLIT1(float, asinpi, float)
KILN_SPLIT1(float, atanpi, float)
KILN_SPLIT2(float, atan2pi, float, float)
KILN_SPLIT1(float, sinpi, float)
KILN_SPLIT1(float, cospi, float)
KILN_SPLIT1(float, tanpi, float)
KILN_SPLIT2(float, pown, float, int)
KILN_SPLIT2(float, rootn, float, int)
KILN_SPLIT1(float, rsqrt, float)

// powr is pow for x >= 0 with its own edge cases (section 7.5.1).
OVL float powr(float x, float y) {
  if (x < 0.0f || x != x || y != y)
    return NAN;
  if (x == 0.0f) {
    if (y == 0.0f)
      return NAN;
    return y < 0.0f ? INFINITY : 0.0f;
  }
  if (x == INFINITY) {
    if (y == 0.0f)
      return NAN;
    return y < 0.0f ? 0.0f : INFINITY;
  }
  if (x == 1.0f)
    return fabs(y) == INFINITY ? NAN : 1.0f;
  return y == 0.0f ? 1.0f : pow(x, y);
}
KILN_SPLIT2(float, powr, float, float)

// The float remainder and the low quotient bits are exact in the double computation.
OVL float remquo(float x, float y, __private int *quo) {
  return (float)remquo((double)x, (double)y, quo);
}
KILN_PTR2_SPLIT(float, remquo, float, float, int)

OVL float lgamma(float x) {
  int sign;
  return libm_lgammaf_r(x, &sign);
}
KILN_SPLIT1(float, lgamma, float)

// The sign is 0 where gamma has a pole (zero and the negative integers).
OVL float lgamma_r(float x, __private int *signp) {
  int sign;
  float r = libm_lgammaf_r(x, &sign);
  *signp = (x == 0.0f || (x < 0.0f && x == trunc(x))) ? 0 : sign;
  return r;
}
KILN_PTR_SPLIT(float, lgamma_r, float, int)

OVL float sincos(float x, __private float *cosval) {
  *cosval = cos(x);
  return sin(x);
}
KILN_PTR_SPLIT(float, sincos, float, float)

// The half_ functions may be as inaccurate as 8192 ulp but must have the full functions' edge
// cases: the full functions serve.
#define KILN_HALF1(F)                                                                              \
  OVL float half_##F(float x) {                                                                    \
    return F(x);                                                                                   \
  }                                                                                                \
  KILN_SPLIT1(float, half_##F, float)
KILN_HALF1(cos)
KILN_HALF1(exp)
KILN_HALF1(exp10)
KILN_HALF1(exp2)
KILN_HALF1(log)
KILN_HALF1(log10)
KILN_HALF1(log2)
KILN_HALF1(rsqrt)
KILN_HALF1(sin)
KILN_HALF1(sqrt)
KILN_HALF1(tan)
#undef KILN_HALF1
OVL float half_divide(float x, float y) {
  return x / y;
}
OVL float half_recip(float x) {
  return 1.0f / x;
}
OVL float half_powr(float x, float y) {
  return powr(x, y);
}
KILN_SPLIT2(float, half_divide, float, float)
KILN_SPLIT1(float, half_recip, float)
KILN_SPLIT2(float, half_powr, float, float)

// The native_ functions have implementation-defined accuracy: they are the plain hardware or
// C library operations, without the edge-case work of the full functions, and stay vectors.
#define KILN_NATIVE(N)                                                                             \
  OVL KILN_VT(float, N) native_cos(KILN_VT(float, N) x) {                                          \
    return __builtin_elementwise_cos(x);                                                           \
  }                                                                                                \
  OVL KILN_VT(float, N) native_sin(KILN_VT(float, N) x) {                                          \
    return __builtin_elementwise_sin(x);                                                           \
  }                                                                                                \
  OVL KILN_VT(float, N) native_tan(KILN_VT(float, N) x) {                                          \
    return __builtin_elementwise_tan(x);                                                           \
  }                                                                                                \
  OVL KILN_VT(float, N) native_exp(KILN_VT(float, N) x) {                                          \
    return __builtin_elementwise_exp(x);                                                           \
  }                                                                                                \
  OVL KILN_VT(float, N) native_exp2(KILN_VT(float, N) x) {                                         \
    return __builtin_elementwise_exp2(x);                                                          \
  }                                                                                                \
  OVL KILN_VT(float, N) native_exp10(KILN_VT(float, N) x) {                                        \
    return __builtin_elementwise_exp10(x);                                                         \
  }                                                                                                \
  OVL KILN_VT(float, N) native_log(KILN_VT(float, N) x) {                                          \
    return __builtin_elementwise_log(x);                                                           \
  }                                                                                                \
  OVL KILN_VT(float, N) native_log2(KILN_VT(float, N) x) {                                         \
    return __builtin_elementwise_log2(x);                                                          \
  }                                                                                                \
  OVL KILN_VT(float, N) native_log10(KILN_VT(float, N) x) {                                        \
    return __builtin_elementwise_log10(x);                                                         \
  }                                                                                                \
  OVL KILN_VT(float, N) native_sqrt(KILN_VT(float, N) x) {                                         \
    return __builtin_elementwise_sqrt(x);                                                          \
  }                                                                                                \
  OVL KILN_VT(float, N) native_rsqrt(KILN_VT(float, N) x) {                                        \
    return 1.0f / __builtin_elementwise_sqrt(x);                                                   \
  }                                                                                                \
  OVL KILN_VT(float, N) native_recip(KILN_VT(float, N) x) {                                        \
    return 1.0f / x;                                                                               \
  }                                                                                                \
  OVL KILN_VT(float, N) native_divide(KILN_VT(float, N) x, KILN_VT(float, N) y) {                  \
    return x / y;                                                                                  \
  }                                                                                                \
  OVL KILN_VT(float, N) native_powr(KILN_VT(float, N) x, KILN_VT(float, N) y) {                    \
    return __builtin_elementwise_exp2(y * __builtin_elementwise_log2(x));                          \
  }
KILN_NATIVE(1)
KILN_NATIVE(2)
KILN_NATIVE(3)
KILN_NATIVE(4)
KILN_NATIVE(8)
KILN_NATIVE(16)
#undef KILN_NATIVE
