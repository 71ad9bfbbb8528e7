// Part of conversions.cl: includes the template for every destination type D, at every width
// (kiln_gentype.h), for the source type S the includer defined along with its properties
// KILN_S_FLOAT, KILN_S_BITS, KILN_S_SIGNED (and KILN_S_PREC, the significand bits, for
// floating-point S). The template gets the same properties of D and
// KILN_D_MIN, KILN_D_MAX (integers), KILN_D_PREC and KILN_D_FINITE_MAX (floating point:
// significand bits, largest finite value) and
// KILN_D_MASK, the signed integer type of the size of D (what a comparison of D vectors gives).
#define D char
#define KILN_D_MASK char
#define KILN_D_FLOAT 0
#define KILN_D_BITS 8
#define KILN_D_SIGNED 1
#define KILN_D_MIN CHAR_MIN
#define KILN_D_MAX CHAR_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX
#define D uchar
#define KILN_D_MASK char
#define KILN_D_SIGNED 0
#define KILN_D_MIN 0
#define KILN_D_MAX UCHAR_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX

#define D short
#define KILN_D_MASK short
#define KILN_D_BITS 16
#define KILN_D_SIGNED 1
#define KILN_D_MIN SHRT_MIN
#define KILN_D_MAX SHRT_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX
#define D ushort
#define KILN_D_MASK short
#define KILN_D_SIGNED 0
#define KILN_D_MIN 0
#define KILN_D_MAX USHRT_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX

#define D int
#define KILN_D_MASK int
#define KILN_D_BITS 32
#define KILN_D_SIGNED 1
#define KILN_D_MIN INT_MIN
#define KILN_D_MAX INT_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX
#define D uint
#define KILN_D_MASK int
#define KILN_D_SIGNED 0
#define KILN_D_MIN 0u
#define KILN_D_MAX UINT_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX

#define D long
#define KILN_D_MASK long
#define KILN_D_BITS 64
#define KILN_D_SIGNED 1
#define KILN_D_MIN LONG_MIN
#define KILN_D_MAX LONG_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX
#define D ulong
#define KILN_D_MASK long
#define KILN_D_SIGNED 0
#define KILN_D_MIN 0ul
#define KILN_D_MAX ULONG_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_SIGNED
#undef KILN_D_MIN
#undef KILN_D_MAX
#undef KILN_D_FLOAT

#define KILN_D_FLOAT 1
#define KILN_D_SIGNED 1
#define D float
#define KILN_D_MASK int
#define KILN_D_BITS 32
#define KILN_D_PREC 24
#define KILN_D_FINITE_MAX FLT_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_PREC
#undef KILN_D_FINITE_MAX
#define D double
#define KILN_D_MASK long
#define KILN_D_BITS 64
#define KILN_D_PREC 53
#define KILN_D_FINITE_MAX DBL_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_PREC
#undef KILN_D_FINITE_MAX
#define D half
#define KILN_D_MASK short
#define KILN_D_BITS 16
#define KILN_D_PREC 11
#define KILN_D_FINITE_MAX HALF_MAX
#include "kiln_gentype.h"
#undef D
#undef KILN_D_MASK
#undef KILN_D_BITS
#undef KILN_D_PREC
#undef KILN_D_FINITE_MAX
#undef KILN_D_SIGNED
#undef KILN_D_FLOAT
