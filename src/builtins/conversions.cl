// Explicit conversions (OpenCL C 3.0 section 6.4.3): convert_<type>[_sat][_<rounding>] between
// every pair of scalar or vector types of the same width, half included (cl_khr_fp16).
// as_<type> needs no library: Clang implements it (__builtin_astype).
#include "kiln_internal.h"
#include "kiln_primitives.h"

#define KILN_TEMPLATE "conversions_gentype.h"

// The name LLVM gives a type in its intrinsics' names: "i32" or "f64" for a scalar (N = 1) of
// that kind and bits, "v4i32" for a vector.
#define KILN_STR(x) KILN_STR_I(x)
#define KILN_STR_I(x) #x
#define KILN_LLVM_TYPE(N, kind, bits) KILN_CAT(KILN_LLVM_TYPE_, N)(kind, bits)
#define KILN_LLVM_TYPE_1(kind, bits) #kind KILN_STR(bits)
#define KILN_LLVM_TYPE_V(N, kind, bits) "v" #N #kind KILN_STR(bits)
#define KILN_LLVM_TYPE_2(kind, bits) KILN_LLVM_TYPE_V(2, kind, bits)
#define KILN_LLVM_TYPE_3(kind, bits) KILN_LLVM_TYPE_V(3, kind, bits)
#define KILN_LLVM_TYPE_4(kind, bits) KILN_LLVM_TYPE_V(4, kind, bits)
#define KILN_LLVM_TYPE_8(kind, bits) KILN_LLVM_TYPE_V(8, kind, bits)
#define KILN_LLVM_TYPE_16(kind, bits) KILN_LLVM_TYPE_V(16, kind, bits)
#define KILN_LLVM_SIGNEDNESS(is_signed) KILN_CAT(KILN_LLVM_SIGNEDNESS_, is_signed)
#define KILN_LLVM_SIGNEDNESS_0 "u"
#define KILN_LLVM_SIGNEDNESS_1 "s"
// The name of LLVM's saturating conversion of N floats of `source_bits` to integers of
// `bits`, signed or not.
#define KILN_LLVM_FPTO_SAT(is_signed, N, bits, source_bits)                                        \
  "llvm.fpto" KILN_LLVM_SIGNEDNESS(is_signed) "i.sat." KILN_LLVM_TYPE(N, i, bits) "."              \
      KILN_LLVM_TYPE(N, f, source_bits)

#define KILN_S_FLOAT 0
#define S char
#define KILN_S_BITS 8
#define KILN_S_SIGNED 1
#include "conversions_types.h"
#undef S
#undef KILN_S_SIGNED
#define S uchar
#define KILN_S_SIGNED 0
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_SIGNED

#define S short
#define KILN_S_BITS 16
#define KILN_S_SIGNED 1
#include "conversions_types.h"
#undef S
#undef KILN_S_SIGNED
#define S ushort
#define KILN_S_SIGNED 0
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_SIGNED

#define S int
#define KILN_S_BITS 32
#define KILN_S_SIGNED 1
#include "conversions_types.h"
#undef S
#undef KILN_S_SIGNED
#define S uint
#define KILN_S_SIGNED 0
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_SIGNED

#define S long
#define KILN_S_BITS 64
#define KILN_S_SIGNED 1
#include "conversions_types.h"
#undef S
#undef KILN_S_SIGNED
#define S ulong
#define KILN_S_SIGNED 0
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_PREC
#undef KILN_S_SIGNED
#undef KILN_S_FLOAT

#define KILN_S_FLOAT 1
#define KILN_S_SIGNED 1
#define S float
#define KILN_S_BITS 32
#define KILN_S_PREC 24
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_PREC
#define S double
#define KILN_S_BITS 64
#define KILN_S_PREC 53
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_PREC
#define S half
#define KILN_S_BITS 16
#define KILN_S_PREC 11
#include "conversions_types.h"
#undef S
#undef KILN_S_BITS
#undef KILN_S_PREC
#undef KILN_S_SIGNED
#undef KILN_S_FLOAT
