// Miscellaneous vector functions (OpenCL C 3.0 section 6.15.12): shuffle and shuffle2 for
// every element type and every input and output width of 2, 4, 8 or 16 components. Only the
// low bits of a mask component that can index the input count. With a constant mask the
// optimizer turns the loops into one shufflevector.
#include "kiln_internal.h"

#define KILN_SHUFFLE(S, U, M, N)                                                                   \
  OVL S##N shuffle(S##M x, U##N mask) {                                                            \
    S##N r;                                                                                        \
    for (int i = 0; i < N; i++)                                                                    \
      r[i] = x[mask[i] & (M - 1)];                                                                 \
    return r;                                                                                      \
  }                                                                                                \
  OVL S##N shuffle2(S##M x, S##M y, U##N mask) {                                                   \
    S##N r;                                                                                        \
    for (int i = 0; i < N; i++) {                                                                  \
      U k = mask[i];                                                                               \
      r[i] = (k & M) ? y[k & (M - 1)] : x[k & (M - 1)];                                            \
    }                                                                                              \
    return r;                                                                                      \
  }
#define KILN_SHUFFLE_N(S, U, M)                                                                    \
  KILN_SHUFFLE(S, U, M, 2)                                                                         \
  KILN_SHUFFLE(S, U, M, 4) KILN_SHUFFLE(S, U, M, 8) KILN_SHUFFLE(S, U, M, 16)
#define KILN_SHUFFLE_ALL(S, U)                                                                     \
  KILN_SHUFFLE_N(S, U, 2) KILN_SHUFFLE_N(S, U, 4) KILN_SHUFFLE_N(S, U, 8) KILN_SHUFFLE_N(S, U, 16)

KILN_SHUFFLE_ALL(char, uchar)
KILN_SHUFFLE_ALL(uchar, uchar)
KILN_SHUFFLE_ALL(short, ushort)
KILN_SHUFFLE_ALL(ushort, ushort)
KILN_SHUFFLE_ALL(int, uint)
KILN_SHUFFLE_ALL(uint, uint)
KILN_SHUFFLE_ALL(long, ulong)
KILN_SHUFFLE_ALL(ulong, ulong)
KILN_SHUFFLE_ALL(float, uint)
KILN_SHUFFLE_ALL(double, ulong)

// half vectors are shuffled as their bits.
#define KILN_SHUFFLE_HALF(M, N)                                                                    \
  OVL half##N shuffle(half##M x, ushort##N mask) {                                                 \
    return as_half##N(shuffle(as_ushort##M(x), mask));                                             \
  }                                                                                                \
  OVL half##N shuffle2(half##M x, half##M y, ushort##N mask) {                                     \
    return as_half##N(shuffle2(as_ushort##M(x), as_ushort##M(y), mask));                           \
  }
#define KILN_SHUFFLE_HALF_N(M)                                                                     \
  KILN_SHUFFLE_HALF(M, 2) KILN_SHUFFLE_HALF(M, 4) KILN_SHUFFLE_HALF(M, 8) KILN_SHUFFLE_HALF(M, 16)
KILN_SHUFFLE_HALF_N(2)
KILN_SHUFFLE_HALF_N(4)
KILN_SHUFFLE_HALF_N(8)
KILN_SHUFFLE_HALF_N(16)
