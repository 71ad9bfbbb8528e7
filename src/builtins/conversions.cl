// Explicit conversions (OpenCL C 3.0 section 6.4.3): convert_<type>[_sat][_<rounding>] between
// every pair of scalar or vector types of the same width, half included (cl_khr_fp16).
// as_<type> needs no library: Clang implements it (__builtin_astype).
#include "kiln_internal.h"

#define KILN_TEMPLATE "conversions_gentype.h"

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
