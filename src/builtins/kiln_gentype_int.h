// Includes the template file KILN_TEMPLATE for each integer type, each at every width (see
// kiln_gentype.h). Besides S, N and T, the template gets:
//   SS, SU      the signed and unsigned scalar types of the size of S
//   ST, UT      the vectors of SS and SU of width N (as_ST, as_UT reinterpret a T)
//   KILN_SIGNED 1 for signed S, KILN_BITS the width of S in bits
//   KILN_MIN, KILN_MAX the range of S
//   SW, UW      a type twice as wide as S with its signedness, and its unsigned version
//               (_BitInt(128) for 64-bit types: scalars only)
#define ST KILN_VT(SS, N)
#define UT KILN_VT(SU, N)
#define as_ST(x) __builtin_astype((x), ST)
#define as_UT(x) __builtin_astype((x), UT)
#define as_T(x) __builtin_astype((x), T)

#define S char
#define SW short
#define UW ushort
#define SS char
#define SU uchar
#define KILN_SIGNED 1
#define KILN_BITS 8
#define KILN_MIN CHAR_MIN
#define KILN_MAX CHAR_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef KILN_SIGNED
#undef KILN_MIN
#undef KILN_MAX
#define S uchar
#define SW ushort
#define UW ushort
#define KILN_SIGNED 0
#define KILN_MIN 0
#define KILN_MAX UCHAR_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef SS
#undef SU
#undef KILN_SIGNED
#undef KILN_BITS
#undef KILN_MIN
#undef KILN_MAX

#define S short
#define SW int
#define UW uint
#define SS short
#define SU ushort
#define KILN_SIGNED 1
#define KILN_BITS 16
#define KILN_MIN SHRT_MIN
#define KILN_MAX SHRT_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef KILN_SIGNED
#undef KILN_MIN
#undef KILN_MAX
#define S ushort
#define SW uint
#define UW uint
#define KILN_SIGNED 0
#define KILN_MIN 0
#define KILN_MAX USHRT_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef SS
#undef SU
#undef KILN_SIGNED
#undef KILN_BITS
#undef KILN_MIN
#undef KILN_MAX

#define S int
#define SW long
#define UW ulong
#define SS int
#define SU uint
#define KILN_SIGNED 1
#define KILN_BITS 32
#define KILN_MIN INT_MIN
#define KILN_MAX INT_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef KILN_SIGNED
#undef KILN_MIN
#undef KILN_MAX
#define S uint
#define SW ulong
#define UW ulong
#define KILN_SIGNED 0
#define KILN_MIN 0u
#define KILN_MAX UINT_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef SS
#undef SU
#undef KILN_SIGNED
#undef KILN_BITS
#undef KILN_MIN
#undef KILN_MAX

#define S long
#define SW _BitInt(128)
#define UW unsigned _BitInt(128)
#define SS long
#define SU ulong
#define KILN_SIGNED 1
#define KILN_BITS 64
#define KILN_MIN LONG_MIN
#define KILN_MAX LONG_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef KILN_SIGNED
#undef KILN_MIN
#undef KILN_MAX
#define S ulong
#define SW unsigned _BitInt(128)
#define UW unsigned _BitInt(128)
#define KILN_SIGNED 0
#define KILN_MIN 0ul
#define KILN_MAX ULONG_MAX
#include "kiln_gentype.h"
#undef S
#undef SW
#undef UW
#undef SS
#undef SU
#undef KILN_SIGNED
#undef KILN_BITS
#undef KILN_MIN
#undef KILN_MAX

#undef ST
#undef UT
#undef as_ST
#undef as_UT
#undef as_T
