// Template of vector_data.cl for float and double of every width (see kiln_gentype_float.h):
// the conversions between T and half representations (ushort bits), exact in integer
// arithmetic so that they depend neither on F16C nor on the current rounding mode, and stay
// vectors.
#define HT KILN_VT(ushort, N)
#define KILN_SIGN_BIT ((SU)1 << (sizeof(SU) * 8 - 1))
#define KILN_INF_BITS ((SU)KILN_EXP_MASK)

#if KILN_MANT_BITS == 23
// Every half is exactly a float: normal ones by re-biasing the exponent, subnormal ones (and
// zeros) by scaling their integer significand (no subnormal float arithmetic, which
// flush-to-zero modes would spoil).
static OVL T kiln_from_half(HT h) {
  UT u = KILN_CONVERT(uint, N, h);
  UT mag = u & (UT)0x7fff;
  UT sign = (u & (UT)0x8000) << 16;
  T subnormal = KILN_CONVERT(float, N, mag) * (T)0x1p-24f;
  UT normal = (mag << 13) + (UT)((127 - 15) << 23);
  UT special = (mag << 13) | (UT)0x7f800000; // infinities and NaNs (payload kept)
  UT bits = mag < (UT)0x400 ? as_UT(subnormal) : mag >= (UT)0x7c00 ? special : normal;
  return as_T(bits | sign);
}
#endif

// T to half bits, rounding as KILN_ROUND_UP(h, rem, halfway, negative) says: h is the
// truncated magnitude, rem the discarded bits and halfway their value at one half ulp.
// Carries propagate into the exponent, up to infinity. Magnitudes from 2^16 on are beyond
// every finite half: they become infinity or the largest half by the direction of rounding.
#define KILN_TO_HALF(NAME, ROUND_UP, OVERFLOW_TO_INF)                                              \
  static OVL HT NAME(T x) {                                                                        \
    UT u = as_UT(x);                                                                               \
    UT negative = u & KILN_SIGN_BIT;                                                               \
    UT a = u & ~KILN_SIGN_BIT;                                                                     \
    UT e = a >> KILN_MANT_BITS;                                                                    \
    /* Normal halves: the exponent re-biased, the top 10 significand bits. */                      \
    UT h_normal =                                                                                  \
        ((e - (UT)(KILN_EXP_BIAS - 15)) << 10) | ((a >> (KILN_MANT_BITS - 10)) & (UT)0x3ff);       \
    UT rem_normal = a & (((UT)1 << (KILN_MANT_BITS - 10)) - (UT)1);                                \
    UT half_normal = (UT)1 << (KILN_MANT_BITS - 11);                                               \
    /* Subnormal halves: the significand shifted to units of 2^-24 (at most just past its          \
       top bit, which leaves h = 0 and the whole significand as a nonzero remainder). */           \
    UT shift = (UT)(KILN_EXP_BIAS + KILN_MANT_BITS - 24) - e;                                      \
    shift = shift > (UT)(KILN_MANT_BITS + 2) ? (UT)(KILN_MANT_BITS + 2) : shift;                   \
    UT mant = a == (UT)0 ? (UT)0                                                                   \
                         : (a & (((UT)1 << KILN_MANT_BITS) - (UT)1)) | ((UT)1 << KILN_MANT_BITS);  \
    UT h_sub = mant >> shift;                                                                      \
    UT rem_sub = mant & (((UT)1 << shift) - (UT)1);                                                \
    UT half_sub = (UT)1 << (shift - (UT)1);                                                        \
    IT subnormal = e < (UT)(KILN_EXP_BIAS - 14);                                                   \
    UT h = subnormal ? h_sub : h_normal;                                                           \
    UT rem = subnormal ? rem_sub : rem_normal;                                                     \
    UT halfway = subnormal ? half_sub : half_normal;                                               \
    h = (ROUND_UP) ? h + (UT)1 : h;                                                                \
    /* Beyond the finite halves (infinity included), and NaNs (quiet, payload kept). */            \
    IT overflow = e >= (UT)(KILN_EXP_BIAS + 16);                                                   \
    h = overflow ? (((OVERFLOW_TO_INF) | (a == KILN_INF_BITS)) ? (UT)0x7c00 : (UT)0x7bff) : h;     \
    h = a > KILN_INF_BITS ? ((UT)0x7e00 | ((a >> (KILN_MANT_BITS - 10)) & (UT)0x3ff)) : h;         \
    return KILN_CONVERT(ushort, N, h | (negative >> (sizeof(SU) * 8 - 16)));                       \
  }

// (Conditions are masks: all bits set for true in vectors, hence -1 for a constant true.)
KILN_TO_HALF(kiln_to_half_rte, (rem > halfway) | ((rem == halfway) & ((h & (UT)1) != (UT)0)),
             (IT)-1)
KILN_TO_HALF(kiln_to_half_rtz, (IT)0, (IT)0)
KILN_TO_HALF(kiln_to_half_rtp, (rem != (UT)0) & (negative == (UT)0), negative == (UT)0)
KILN_TO_HALF(kiln_to_half_rtn, (rem != (UT)0) & (negative != (UT)0), negative != (UT)0)
#undef KILN_TO_HALF
#undef HT
#undef KILN_SIGN_BIT
#undef KILN_INF_BITS
