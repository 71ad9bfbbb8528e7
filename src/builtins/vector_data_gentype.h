// Template of vector_data.cl for float and double of every width (see kiln_gentype_float.h):
// the conversions between T and half representations (ushort bits). float converts with the
// processor's own instructions (F16C on x86, cvt on PTX), which are exact and branch-free: the
// directed roundings start from the nearest half and step one bit pattern when it lies on the
// wrong side of x. double rounds to float with the sticky "round to odd" first, which keeps
// every rounding of that float to half correct (float has more than 11 + 2 bits).
#define HT KILN_VT(ushort, N)
#define HMASK(c) KILN_CONVERT(short, N, (c))

#if KILN_MANT_BITS == 23
// Every half is exactly a float (subnormals, infinities and NaNs included).
static OVL T kiln_from_half(HT h) {
  return KILN_CONVERT(float, N, __builtin_astype(h, KILN_VT(half, N)));
}

static OVL HT kiln_to_half_rte(T x) {
  return __builtin_astype(KILN_CONVERT(half, N, x), HT);
}

// The nearest half h is one of the two neighbours of x: when it is on the wrong side of x, the
// answer is the other, one bit pattern away (the patterns of each sign are ordered by magnitude,
// from zero up to infinity). A NaN compares neither way and stays.
static OVL HT kiln_to_half_rtz(T x) {
  HT h = kiln_to_half_rte(x);
  T back = kiln_from_half(h);
  return HMASK(fabs(back) > fabs(x)) ? h - (HT)1 : h;
}
static OVL HT kiln_to_half_rtp(T x) {
  HT h = kiln_to_half_rte(x);
  T back = kiln_from_half(h);
  HT step = HMASK(h >= (HT)0x8000) ? (HT)-1 : (HT)1;
  return HMASK(back < x) ? h + step : h;
}
static OVL HT kiln_to_half_rtn(T x) {
  HT h = kiln_to_half_rte(x);
  T back = kiln_from_half(h);
  HT step = HMASK(h >= (HT)0x8000) ? (HT)1 : (HT)-1;
  return HMASK(back > x) ? h + step : h;
}
#else
// x rounded to float towards zero, with the lowest significand bit set when that was inexact.
// Beyond the finite floats it becomes the largest one (odd), which every mode then rounds to
// half as it would x; a NaN keeps its top payload bits, which are all half keeps.
static OVL KILN_VT(float, N) kiln_to_float_odd(T x) {
  KILN_VT(float, N) f = KILN_CONVERT(float, N, x);
  T back = KILN_CONVERT(double, N, f);
  KILN_VT(uint, N) bits = __builtin_astype(f, KILN_VT(uint, N));
  KILN_VT(uint, N) one = (KILN_VT(uint, N))1;
  bits = KILN_CONVERT(int, N, fabs(back) > fabs(x)) ? bits - one : bits;
  bits = KILN_CONVERT(int, N, back != x) ? bits | one : bits;
  return __builtin_astype(bits, KILN_VT(float, N));
}
static OVL HT kiln_to_half_rte(T x) {
  return kiln_to_half_rte(kiln_to_float_odd(x));
}
static OVL HT kiln_to_half_rtz(T x) {
  return kiln_to_half_rtz(kiln_to_float_odd(x));
}
static OVL HT kiln_to_half_rtp(T x) {
  return kiln_to_half_rtp(kiln_to_float_odd(x));
}
static OVL HT kiln_to_half_rtn(T x) {
  return kiln_to_half_rtn(kiln_to_float_odd(x));
}
#endif
#undef HMASK
#undef HT
