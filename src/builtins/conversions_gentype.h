// Template of conversions.cl: the conversions from T (S of width N) to D of width N (see
// conversions_types.h for the properties of S and D).
#define DT KILN_VT(D, N)
#define MT KILN_VT(KILN_D_MASK, N)
#define KILN_CONV(suffix) KILN_CAT(KILN_CAT(convert_, DT), suffix)
// Defines convert_<DT><suffix> as convert_<DT><base>.
#define KILN_CONV_AS(suffix, base)                                                                 \
  OVL DT KILN_CONV(suffix)(T x) {                                                                  \
    return KILN_CONV(base)(x);                                                                     \
  }

#if !KILN_S_FLOAT && !KILN_D_FLOAT
// Integer to integer: the rounding mode is irrelevant; out-of-range values wrap (C's modular
// conversion) or saturate. Saturation clamps in the source type, at the bounds of D that lie
// inside the range of S.
OVL DT KILN_CONV()(T x) {
  return KILN_CONVERT(D, N, x);
}
OVL DT KILN_CONV(_sat)(T x) {
  T c = x;
#if KILN_D_BITS - KILN_D_SIGNED < KILN_S_BITS - KILN_S_SIGNED
  c = __builtin_elementwise_min(c, (T)KILN_D_MAX);
#endif
#if KILN_S_SIGNED && (!KILN_D_SIGNED || KILN_D_BITS < KILN_S_BITS)
  c = __builtin_elementwise_max(c, (T)KILN_D_MIN);
#endif
  return KILN_CONVERT(D, N, c);
}
KILN_CONV_AS(_rte, )
KILN_CONV_AS(_rtz, )
KILN_CONV_AS(_rtp, )
KILN_CONV_AS(_rtn, )
KILN_CONV_AS(_sat_rte, _sat)
KILN_CONV_AS(_sat_rtz, _sat)
KILN_CONV_AS(_sat_rtp, _sat)
KILN_CONV_AS(_sat_rtn, _sat)

#elif KILN_S_FLOAT && !KILN_D_FLOAT
// Floating point to integer. Out-of-range values have no defined result without _sat; they
// saturate too rather than being undefined behavior (LLVM's fptosi would give poison). NaN
// converts to 0. The value, already integral (or truncated by the conversion), is clamped to
// [D_MIN, the largest S not above D_MAX] so the conversion is in range; when D_MAX is not
// representable in S, values from D_MAX + 1 up become D_MAX afterwards.
#if KILN_S_BITS == 16 && KILN_D_BITS - KILN_D_SIGNED >= 16
// half to an integer type that holds every finite half: the infinities saturate.
static OVL DT KILN_CAT(kiln_saturate_to_, DT)(T r) {
  T c = r != r ? (T)0 : r;
  c = __builtin_elementwise_max(c, KILN_D_SIGNED ? (T)-HALF_MAX : (T)0);
  c = __builtin_elementwise_min(c, (T)HALF_MAX);
  DT d = KILN_CONVERT(D, N, c);
  d = KILN_CONVERT(KILN_D_MASK, N, r == (T)INFINITY) ? (DT)KILN_D_MAX : d;
  return KILN_CONVERT(KILN_D_MASK, N, r == (T)-INFINITY) ? (DT)KILN_D_MIN : d;
}
#else
#if KILN_D_BITS - KILN_D_SIGNED > KILN_S_PREC
#define KILN_LIMIT ((T)(1ul << (KILN_D_BITS - KILN_D_SIGNED - 1)) * (T)2) // D_MAX + 1
#define KILN_HIGHEST (KILN_LIMIT * (T)(1.0 - 0x1p-53 * (1L << (53 - KILN_S_PREC))))
#else
#define KILN_HIGHEST ((T)KILN_D_MAX)
#endif
// LLVM's saturating conversion, whose meaning is the software's below, for the devices whose
// conversion instruction does that itself (__kiln_converts_saturating_natively()).
#define KILN_FPTO_SAT KILN_CAT(KILN_CAT(__kiln_fpto_sat_, DT), KILN_CAT(_, T))
DT KILN_FPTO_SAT(T) __asm(KILN_LLVM_FPTO_SAT(KILN_D_SIGNED, N, KILN_D_BITS, KILN_S_BITS));
static OVL DT KILN_CAT(kiln_saturate_to_, DT)(T r) {
  if (__kiln_converts_saturating_natively())
    return KILN_FPTO_SAT(r);
  T c = r != r ? (T)0 : r;
  c = __builtin_elementwise_max(c, (T)KILN_D_MIN);
  c = __builtin_elementwise_min(c, KILN_HIGHEST);
  DT d = KILN_CONVERT(D, N, c);
#ifdef KILN_LIMIT
  d = KILN_CONVERT(KILN_D_MASK, N, r >= KILN_LIMIT) ? (DT)KILN_D_MAX : d;
#endif
  return d;
}
#undef KILN_FPTO_SAT
#undef KILN_LIMIT
#undef KILN_HIGHEST
#endif
OVL DT KILN_CONV(_sat_rtz)(T x) {
  return KILN_CAT(kiln_saturate_to_, DT)(x);
}
OVL DT KILN_CONV(_sat_rte)(T x) {
  return KILN_CAT(kiln_saturate_to_, DT)(rint(x));
}
OVL DT KILN_CONV(_sat_rtp)(T x) {
  return KILN_CAT(kiln_saturate_to_, DT)(ceil(x));
}
OVL DT KILN_CONV(_sat_rtn)(T x) {
  return KILN_CAT(kiln_saturate_to_, DT)(floor(x));
}
KILN_CONV_AS(_sat, _sat_rtz)
KILN_CONV_AS(, _sat_rtz)
KILN_CONV_AS(_rtz, _sat_rtz)
KILN_CONV_AS(_rte, _sat_rte)
KILN_CONV_AS(_rtp, _sat_rtp)
KILN_CONV_AS(_rtn, _sat_rtn)

#else
// To floating point: the C conversion rounds to nearest even. Where that can be inexact, the
// directed roundings compare the rounded value r with x exactly and step r by one ulp when it
// lies on the wrong side (r >= x for rtn, r <= x for rtp, |r| >= |x| for rtz).
#if KILN_S_FLOAT && KILN_S_PREC == 53 && KILN_D_PREC == 11
// double to half: rounded to float "to odd" first (towards zero, the last significand bit set
// when inexact), which keeps every rounding of that float to half the one correct rounding of x:
// float has more than 11 + 2 significant bits. (Rounding to the nearest float first would round
// some values twice; the direct conversion is a library call per element on most processors.)
// Beyond the finite floats x becomes the largest one, odd; a NaN keeps the top payload bits,
// which are all half keeps.
static OVL KILN_VT(float, N) kiln_to_float_odd(T x) {
  KILN_VT(float, N) f = KILN_CONVERT(float, N, x);
  T back = KILN_CONVERT(double, N, f);
  KILN_VT(uint, N) bits = __builtin_astype(f, KILN_VT(uint, N));
  KILN_VT(uint, N) one = (KILN_VT(uint, N))1;
  bits = KILN_CONVERT(int, N, fabs(back) > fabs(x)) ? bits - one : bits;
  bits = KILN_CONVERT(int, N, back != x) ? bits | one : bits;
  return __builtin_astype(bits, KILN_VT(float, N));
}
OVL DT KILN_CONV()(T x) {
  return KILN_CONV()(kiln_to_float_odd(x));
}
KILN_CONV_AS(_rte, )
OVL DT KILN_CONV(_rtz)(T x) {
  return KILN_CONV(_rtz)(kiln_to_float_odd(x));
}
OVL DT KILN_CONV(_rtp)(T x) {
  return KILN_CONV(_rtp)(kiln_to_float_odd(x));
}
OVL DT KILN_CONV(_rtn)(T x) {
  return KILN_CONV(_rtn)(kiln_to_float_odd(x));
}
#else
OVL DT KILN_CONV()(T x) {
  return KILN_CONVERT(D, N, x);
}
KILN_CONV_AS(_rte, )

#if KILN_S_FLOAT && KILN_S_PREC <= KILN_D_PREC
// Floating point to as wide or wider floating point: exact.
KILN_CONV_AS(_rtz, )
KILN_CONV_AS(_rtp, )
KILN_CONV_AS(_rtn, )
#elif !KILN_S_FLOAT && KILN_S_BITS - KILN_S_SIGNED <= KILN_D_PREC
// Integers that the significand holds: exact.
KILN_CONV_AS(_rtz, )
KILN_CONV_AS(_rtp, )
KILN_CONV_AS(_rtn, )
#else
#if KILN_S_FLOAT
// double to float or half, float to half: the narrower result converts back to T exactly. A NaN
// compares neither way and stays.
#define KILN_COMPARE(r, x)                                                                         \
  T back = KILN_CONVERT(S, N, r);                                                                  \
  MT above = KILN_CONVERT(KILN_D_MASK, N, back > x);                                               \
  MT below = KILN_CONVERT(KILN_D_MASK, N, back < x);
#else
// 32- or 64-bit integers: r is integral; above the range of S (r = 2^31, 2^32, 2^63 or 2^64
// when x rounds up to it) it is above x, otherwise its value in S's 64-bit family compares.
#if KILN_S_SIGNED
#define KILN_WIDE long
#else
#define KILN_WIDE ulong
#endif
#define KILN_LIMIT ((DT)(1ul << (KILN_S_BITS - KILN_S_SIGNED - 1)) * (DT)2)
// Into half, x can overflow to -infinity as well (r is then below x), and r is clamped to the
// finite halves before it converts back.
#define KILN_COMPARE(r, x)                                                                         \
  MT over = r >= KILN_LIMIT;                                                                       \
  MT under = r == (DT)-INFINITY;                                                                   \
  DT clamped =                                                                                     \
      __builtin_elementwise_min(r, KILN_LIMIT * (DT)(1.0 - 0x1p-53 * (1L << (53 - KILN_D_PREC)))); \
  clamped = __builtin_elementwise_min(clamped, (DT)KILN_D_FINITE_MAX);                             \
  clamped = __builtin_elementwise_max(clamped, (DT)-KILN_D_FINITE_MAX);                            \
  KILN_VT(KILN_WIDE, N) back = KILN_CONVERT(KILN_WIDE, N, clamped);                                \
  KILN_VT(KILN_WIDE, N) wide_x = KILN_CONVERT(KILN_WIDE, N, x);                                    \
  MT above = over | ((!under) & KILN_CONVERT(KILN_D_MASK, N, back > wide_x));                      \
  MT below = under | ((!over) & KILN_CONVERT(KILN_D_MASK, N, back < wide_x));
#endif
// r and its neighbours as bits: each sign's patterns are ordered by magnitude, from zero to
// infinity, so a neighbour is one pattern away (selects on bits, where nextafter's branches would
// stay branches in scalar code).
#define KILN_BITS(r) __builtin_astype((r), MT)
#define KILN_FROM_BITS(bits) __builtin_astype((MT)(bits), DT)
OVL DT KILN_CONV(_rtn)(T x) {
  DT r = KILN_CONVERT(D, N, x);
  KILN_COMPARE(r, x)
  // Above x, r is not -0 (x would be below zero and r rounded from it, -0 included, stays).
  MT bits = KILN_BITS(r);
  MT down = bits < (MT)0 ? (MT)1 : (MT)-1;
  return above ? KILN_FROM_BITS(bits + down) : r;
}
OVL DT KILN_CONV(_rtp)(T x) {
  DT r = KILN_CONVERT(D, N, x);
  KILN_COMPARE(r, x)
  MT bits = KILN_BITS(r);
  MT up = bits < (MT)0 ? (MT)-1 : (MT)1;
  return below ? KILN_FROM_BITS(bits + up) : r;
}
// r has the sign of x (rounding to nearest keeps it) and is not zero when it lies away from x:
// towards zero is one pattern less in magnitude, whichever the sign.
OVL DT KILN_CONV(_rtz)(T x) {
  DT r = KILN_CONVERT(D, N, x);
  KILN_COMPARE(r, x)
  MT away = r < (DT)0 ? below : r > (DT)0 ? above : (MT)0;
  return away ? KILN_FROM_BITS(KILN_BITS(r) - (MT)1) : r;
}
#undef KILN_BITS
#undef KILN_FROM_BITS
#undef KILN_COMPARE
#undef KILN_WIDE
#undef KILN_LIMIT
#endif
#endif
#endif

#undef DT
#undef MT
#undef KILN_CONV
#undef KILN_CONV_AS
