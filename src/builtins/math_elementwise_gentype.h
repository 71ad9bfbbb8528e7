// Template of math_common.cl: the math functions that are LLVM intrinsics, for float and double
// of every width. The x86 backend calls the C library for them (per element), whose float and
// double versions meet the specification's accuracy (acos 4 ulp, asin 4, atan 5, atan2 6,
// cos 4, cosh 4, sin 4, sinh 4, tan 5, tanh 5, exp 3, exp2 3, exp10 3, log 3, log2 3,
// log10 3, pow 16; glibc stays within 2.1 ulp) and edge cases (C99 Annex F).
// half goes through float: each result is the float function's, rounded once to half (the
// backends compute half there anyway, and the GPU's has no half versions of these).
#if KILN_MANT_BITS == 10
#define KILN_ELEMENTWISE1(F)                                                                       \
  OVL T F(T x) {                                                                                   \
    return KILN_CONVERT(half, N, __builtin_elementwise_##F(KILN_CONVERT(float, N, x)));            \
  }
#define KILN_ELEMENTWISE2(F, A, B)                                                                 \
  OVL T F(T A, T B) {                                                                              \
    return KILN_CONVERT(                                                                           \
        half, N, __builtin_elementwise_##F(KILN_CONVERT(float, N, A), KILN_CONVERT(float, N, B))); \
  }
#else
#define KILN_ELEMENTWISE1(F)                                                                       \
  OVL T F(T x) {                                                                                   \
    return __builtin_elementwise_##F(x);                                                           \
  }
#define KILN_ELEMENTWISE2(F, A, B)                                                                 \
  OVL T F(T A, T B) {                                                                              \
    return __builtin_elementwise_##F(A, B);                                                        \
  }
#endif
KILN_ELEMENTWISE1(acos)
KILN_ELEMENTWISE1(asin)
KILN_ELEMENTWISE1(atan)
KILN_ELEMENTWISE2(atan2, y, x)
KILN_ELEMENTWISE1(cos)
KILN_ELEMENTWISE1(cosh)
KILN_ELEMENTWISE1(sin)
KILN_ELEMENTWISE1(sinh)
KILN_ELEMENTWISE1(tan)
KILN_ELEMENTWISE1(tanh)
KILN_ELEMENTWISE1(exp)
KILN_ELEMENTWISE1(exp2)
KILN_ELEMENTWISE1(exp10)
KILN_ELEMENTWISE1(log)
KILN_ELEMENTWISE1(log2)
KILN_ELEMENTWISE1(log10)
KILN_ELEMENTWISE2(pow, x, y)
#undef KILN_ELEMENTWISE1
#undef KILN_ELEMENTWISE2
