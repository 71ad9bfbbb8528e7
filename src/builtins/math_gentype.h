// Template of math_common.cl: the math functions that are written once for float and double
// of every width (see kiln_gentype_float.h for S, N, T, SI, IT, UT, ...). These are exact
// operations (no rounding error beyond the single rounding of the result), written with LLVM's
// element-wise intrinsics and integer operations on the representation, so vectors stay
// vectors.

// The overloads F(T, AS P *) for the __global, __local and generic address spaces, on the
// __private one (through a private temporary).
#define KILN_OTHER_AS(F, P, AS)                                                                    \
  OVL T F(T x, AS P *out) {                                                                        \
    P t;                                                                                           \
    T r = F(x, &t);                                                                                \
    *out = t;                                                                                      \
    return r;                                                                                      \
  }
#define KILN_ALL_OTHER_AS(F, P)                                                                    \
  KILN_OTHER_AS(F, P, __global) KILN_OTHER_AS(F, P, __local) KILN_OTHER_AS(F, P, __generic)

OVL T fabs(T x) {
  return __builtin_elementwise_abs(x);
}
OVL T ceil(T x) {
  return __builtin_elementwise_ceil(x);
}
OVL T floor(T x) {
  return __builtin_elementwise_floor(x);
}
OVL T trunc(T x) {
  return __builtin_elementwise_trunc(x);
}
OVL T round(T x) {
  return __builtin_elementwise_round(x);
}
// rint rounds to nearest even whatever the current rounding mode is.
OVL T rint(T x) {
  return __builtin_elementwise_roundeven(x);
}
OVL T copysign(T x, T y) {
  return __builtin_elementwise_copysign(x, y);
}
#if KILN_MANT_BITS == 10
// half: the product of two halves is exact in double and the sum is rounded once there, never
// onto a half tie the exact sum is not on, so rounding it to half gives the correctly rounded
// fused result (float's rounding of the sum can land on such a tie).
OVL T fma(T a, T b, T c) {
  return KILN_CONVERT(half, N,
                      __builtin_elementwise_fma(KILN_CONVERT(double, N, a),
                                                KILN_CONVERT(double, N, b),
                                                KILN_CONVERT(double, N, c)));
}
#else
OVL T fma(T a, T b, T c) {
  return __builtin_elementwise_fma(a, b, c);
}
#endif
// mad may be an fma; with FMA hardware that is also the fastest.
OVL T mad(T a, T b, T c) {
  return __builtin_elementwise_fma(a, b, c);
}
OVL T sqrt(T x) {
  return __builtin_elementwise_sqrt(x);
}
OVL T fmod(T x, T y) {
  return __builtin_elementwise_fmod(x, y);
}

// fmax/fmin return the other argument when one is a NaN: LLVM's maxnum/minnum.
OVL T fmax(T x, T y) {
  return __builtin_elementwise_max(x, y);
}
OVL T fmin(T x, T y) {
  return __builtin_elementwise_min(x, y);
}
#if N != 1
OVL T fmax(T x, S y) {
  return __builtin_elementwise_max(x, (T)y);
}
OVL T fmin(T x, S y) {
  return __builtin_elementwise_min(x, (T)y);
}
#endif

OVL T fdim(T x, T y) {
  T r = x > y ? x - y : (T)0;
  return ((x != x) | (y != y)) ? x + y : r; // a NaN argument gives a NaN
}

OVL T maxmag(T x, T y) {
  T ax = fabs(x), ay = fabs(y);
  return ax > ay ? x : ay > ax ? y : fmax(x, y);
}

OVL T minmag(T x, T y) {
  T ax = fabs(x), ay = fabs(y);
  return ax < ay ? x : ay < ax ? y : fmin(x, y);
}

// x - floor(x) rounds up to 1.0 for tiny negative x: the result is clamped below 1. Zeros keep
// their sign, infinities give a zero of their sign, NaNs stay NaN.
OVL T fract(T x, __private T *ip) {
  T fl = floor(x);
  *ip = fl;
  T r = fmin(x - fl, (T)KILN_ONE_BELOW);
  r = fabs(x) == (T)INFINITY ? copysign((T)0, x) : r;
  return ((x == (T)0) | (x != x)) ? x : r;
}
KILN_ALL_OTHER_AS(fract, T)

// As the specification defines it (section 7.5.2): the fraction has the sign of x and is a
// zero for infinities.
OVL T modf(T x, __private T *ip) {
  T t = trunc(x);
  *ip = t;
  return copysign(fabs(x) == (T)INFINITY ? (T)0 : x - t, x);
}
KILN_ALL_OTHER_AS(modf, T)

// The unbiased exponent of finite nonzero x, subnormals included: those are scaled into the
// normal range first.
static OVL IT kiln_exponent(T x) {
  IT biased = (as_IT(x) & (IT)KILN_EXP_MASK) >> (IT)KILN_MANT_BITS;
  T scaled = biased == (IT)0 ? x * (T)KILN_SUBNORMAL_SCALE : x;
  IT e = (as_IT(scaled) & (IT)KILN_EXP_MASK) >> (IT)KILN_MANT_BITS;
  return e -
         (biased == (IT)0 ? (IT)(KILN_EXP_BIAS + KILN_SUBNORMAL_SCALE_BITS) : (IT)KILN_EXP_BIAS);
}

#define KILN_INT_T KILN_VT(int, N)

OVL T frexp(T x, __private KILN_INT_T *exp) {
  IT e = kiln_exponent(x) + (IT)1;
  IT special = (x == (T)0) | (x != x) | (fabs(x) == (T)INFINITY);
  // Replace the exponent so that the magnitude lies in [0.5, 1); subnormals were scaled.
  IT biased = (as_IT(x) & (IT)KILN_EXP_MASK) >> (IT)KILN_MANT_BITS;
  T scaled = biased == (IT)0 ? x * (T)KILN_SUBNORMAL_SCALE : x;
  T m = as_T(
      (IT)((as_IT(scaled) & ~(IT)KILN_EXP_MASK) | ((IT)(KILN_EXP_BIAS - 1) << (IT)KILN_MANT_BITS)));
  *exp = KILN_CONVERT(int, N, special ? (IT)0 : e);
  return special ? x : m;
}
KILN_ALL_OTHER_AS(frexp, KILN_INT_T)

// In int: the special values (INT_MIN, INT_MAX) do not fit half's 16-bit IT.
OVL KILN_INT_T ilogb(T x) {
  KILN_INT_T e = KILN_CONVERT(int, N, kiln_exponent(x));
  e = KILN_CONVERT(int, N, x == (T)0) ? (KILN_INT_T)FP_ILOGB0 : e;
  e = KILN_CONVERT(int, N, fabs(x) == (T)INFINITY) ? (KILN_INT_T)INT_MAX : e;
  return KILN_CONVERT(int, N, x != x) ? (KILN_INT_T)FP_ILOGBNAN : e;
}

OVL T logb(T x) {
  T e = KILN_CONVERT(S, N, kiln_exponent(x));
  e = x == (T)0 ? (T)-INFINITY : e;
  return ((fabs(x) == (T)INFINITY) | (x != x)) ? fabs(x) : e;
}

#if KILN_MANT_BITS == 10
// half: scaled exactly in float, with the exponent clamped where every half already reaches
// zero or infinity (LLVM's half ldexp narrows the exponent), then rounded once.
OVL T ldexp(T x, KILN_INT_T k) {
  KILN_INT_T clamped =
      __builtin_elementwise_min(__builtin_elementwise_max(k, (KILN_INT_T)-64), (KILN_INT_T)64);
  return KILN_CONVERT(half, N, __builtin_elementwise_ldexp(KILN_CONVERT(float, N, x), clamped));
}
#else
OVL T ldexp(T x, KILN_INT_T k) {
  return __builtin_elementwise_ldexp(x, k);
}
#endif
#if N != 1
OVL T ldexp(T x, int k) {
  return __builtin_elementwise_ldexp(x, (KILN_INT_T)k);
}
#endif

// A quiet NaN carrying the low bits of the code in its significand.
OVL T nan(UT code) {
  UT mantissa = code & (UT)(((UT)1 << (UT)KILN_MANT_BITS) - (UT)1);
  return as_T((UT)(mantissa | (UT)KILN_EXP_MASK | ((UT)1 << (UT)(KILN_MANT_BITS - 1))));
}

// Steps x one representable value towards y on the integer line where the representations of
// negative values are mirrored (-0 and +0 both map to 0).
OVL T nextafter(T x, T y) {
  IT ix = as_IT(x), iy = as_IT(y);
  IT kx = ix < (IT)0 ? -(ix & (IT)~KILN_SIGN_MASK) : ix;
  IT ky = iy < (IT)0 ? -(iy & (IT)~KILN_SIGN_MASK) : iy;
  IT k = kx + (ky > kx ? (IT)1 : (IT)-1);
  // Stepping from a negative value to zero gives -0, as C's nextafter does.
  IT rbits = k < (IT)0 ? (IT)(-k | (IT)KILN_SIGN_MASK) : k;
  T r = as_T((IT)(k == (IT)0 ? (IT)(ix & (IT)KILN_SIGN_MASK) : rbits));
  r = x == y ? y : r;
  return ((x != x) | (y != y)) ? x + y : r;
}

#undef KILN_INT_T
#undef KILN_OTHER_AS
#undef KILN_ALL_OTHER_AS
