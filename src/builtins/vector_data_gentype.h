// Template of vector_data.cl for float and double of every width (see kiln_gentype_float.h):
// the conversions between T and half representations (ushort bits). float converts with the
// processor's own instructions (F16C on x86, cvt on PTX), exact and branch-free; T to half in
// each rounding mode is the conversions' own (conversions_gentype.h).
#define HT KILN_VT(ushort, N)

#if KILN_MANT_BITS == 23
// Every half is exactly a float (subnormals, infinities and NaNs included).
static OVL T kiln_from_half(HT h) {
  return KILN_CONVERT(float, N, __builtin_astype(h, KILN_VT(half, N)));
}
#endif

#define KILN_TO_HALF(MODE)                                                                         \
  static OVL HT kiln_to_half_##MODE(T x) {                                                         \
    return __builtin_astype(KILN_CAT(KILN_CAT(convert_, KILN_VT(half, N)), _##MODE)(x), HT);       \
  }
KILN_TO_HALF(rte)
KILN_TO_HALF(rtz)
KILN_TO_HALF(rtp)
KILN_TO_HALF(rtn)
#undef KILN_TO_HALF
#undef HT
