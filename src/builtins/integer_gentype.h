// Template of integer.cl for every integer type and width (see kiln_gentype_int.h).
// Arithmetic that can wrap is done on unsigned types: signed overflow would be undefined.
// Scalars narrower than int are promoted by C's rules; results convert back to T.

#if KILN_SIGNED
// LLVM's abs of the most negative value is that value, whose bits are its magnitude unsigned.
OVL UT abs(T x) {
  return as_UT(__builtin_elementwise_abs(x));
}
#else
OVL UT abs(T x) {
  return x;
}
#endif

OVL UT abs_diff(T x, T y) {
  UT ux = as_UT(x), uy = as_UT(y);
  return x > y ? (UT)(ux - uy) : (UT)(uy - ux);
}

OVL T add_sat(T x, T y) {
  return __builtin_elementwise_add_sat(x, y);
}
OVL T sub_sat(T x, T y) {
  return __builtin_elementwise_sub_sat(x, y);
}

// (x + y) >> 1 and (x + y + 1) >> 1 without the intermediate overflow.
OVL T hadd(T x, T y) {
  return (x >> 1) + (y >> 1) + (x & y & (T)1);
}
OVL T rhadd(T x, T y) {
  return (x >> 1) + (y >> 1) + ((x | y) & (T)1);
}

OVL T max(T x, T y) {
  return __builtin_elementwise_max(x, y);
}
OVL T min(T x, T y) {
  return __builtin_elementwise_min(x, y);
}
OVL T clamp(T x, T lo, T hi) {
  return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);
}
#if N != 1
OVL T max(T x, S y) {
  return __builtin_elementwise_max(x, (T)y);
}
OVL T min(T x, S y) {
  return __builtin_elementwise_min(x, (T)y);
}
OVL T clamp(T x, S lo, S hi) {
  return __builtin_elementwise_min(__builtin_elementwise_max(x, (T)lo), (T)hi);
}
#endif

OVL T clz(T x) {
  return __builtin_elementwise_clzg(x, (T)KILN_BITS);
}
OVL T ctz(T x) {
  return __builtin_elementwise_ctzg(x, (T)KILN_BITS);
}
OVL T popcount(T x) {
  return __builtin_elementwise_popcount(x);
}
OVL T rotate(T v, T i) {
  return __builtin_elementwise_fshl(v, v, i);
}
OVL T bit_reverse(T x) {
  return __builtin_elementwise_bitreverse(x);
}

#if KILN_BITS < 64 || N == 1
// The high half of the product, and the product plus c saturated, in the twice wider type
// (64-bit vectors are split in integer.cl).
OVL T mul_hi(T x, T y) {
  return KILN_CONVERT(S, N, (KILN_CONVERT(SW, N, x) * KILN_CONVERT(SW, N, y)) >> KILN_BITS);
}

OVL T mad_sat(T a, T b, T c) {
  KILN_VT(SW, N) r = KILN_CONVERT(SW, N, a) * KILN_CONVERT(SW, N, b) + KILN_CONVERT(SW, N, c);
  r = r < (KILN_VT(SW, N))KILN_MIN ? (KILN_VT(SW, N))KILN_MIN : r;
  r = r > (KILN_VT(SW, N))KILN_MAX ? (KILN_VT(SW, N))KILN_MAX : r;
  return KILN_CONVERT(S, N, r);
}
#endif

// mul_hi(a, b) + c, wrapping.
OVL T mad_hi(T a, T b, T c) {
  return as_T((UT)(as_UT(mul_hi(a, b)) + as_UT(c)));
}

#if KILN_BITS < 64
// hi in the high half and lo in the low half of the twice wider type.
OVL KILN_VT(SW, N) upsample(T hi, UT lo) {
  KILN_VT(UW, N) r = (KILN_CONVERT(UW, N, hi) << KILN_BITS) | KILN_CONVERT(UW, N, lo);
  return KILN_CONVERT(SW, N, r);
}
#endif

#if KILN_BITS == 32
// Only the low 24 bits of the operands are meant to matter; the product is the low 32 bits of
// the full product whatever the operands are.
OVL T mul24(T x, T y) {
  return as_T((UT)(as_UT(x) * as_UT(y)));
}
OVL T mad24(T x, T y, T z) {
  return as_T((UT)(as_UT(x) * as_UT(y) + as_UT(z)));
}
#endif

// cl_khr_extended_bit_ops. A count of 0 selects no bits; offset + count beyond the width is
// undefined behavior of the caller.
OVL T bitfield_insert(T base, T insert, uint offset, uint count) {
  UT mask = count == 0 ? (UT)0 : (UT)((UT)((UT) ~(SU)0 >> (KILN_BITS - count)) << offset);
  return as_T((UT)((as_UT(base) & ~mask) | ((UT)(as_UT(insert) << offset) & mask)));
}

OVL ST bitfield_extract_signed(T base, uint offset, uint count) {
  ST top = as_ST((UT)(as_UT(base) << (KILN_BITS - offset - count)));
  return count == 0 ? (ST)0 : (ST)(top >> (KILN_BITS - count));
}

OVL UT bitfield_extract_unsigned(T base, uint offset, uint count) {
  UT top = (UT)(as_UT(base) << (KILN_BITS - offset - count));
  return count == 0 ? (UT)0 : (UT)(top >> (KILN_BITS - count));
}
