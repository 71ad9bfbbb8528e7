// Integer functions (OpenCL C 3.0 section 6.15.3), with the extended bit operations
// (cl_khr_extended_bit_ops) and the integer dot products (cl_khr_integer_dot_product).
#include "kiln_internal.h"

#define KILN_TEMPLATE "integer_gentype.h"
#include "kiln_gentype_int.h"
#undef KILN_TEMPLATE

// No 128-bit vectors: the 64-bit vector overloads that need the wider type work per element.
KILN_SPLIT2(long, mul_hi, long, long)
KILN_SPLIT2(ulong, mul_hi, ulong, ulong)
KILN_SPLIT3(long, mad_sat, long, long, long)
KILN_SPLIT3(ulong, mad_sat, ulong, ulong, ulong)

// The products of 8-bit values summed in 32 bits cannot overflow; only the accumulation
// saturates.
static int kiln_dot4(int4 a, int4 b) {
  int4 p = a * b;
  return p.x + p.y + p.z + p.w;
}

OVL uint dot(uchar4 a, uchar4 b) {
  return (uint)kiln_dot4(convert_int4(a), convert_int4(b));
}
OVL int dot(char4 a, char4 b) {
  return kiln_dot4(convert_int4(a), convert_int4(b));
}
OVL int dot(char4 a, uchar4 b) {
  return kiln_dot4(convert_int4(a), convert_int4(b));
}
OVL int dot(uchar4 a, char4 b) {
  return kiln_dot4(convert_int4(a), convert_int4(b));
}

OVL uint dot_acc_sat(uchar4 a, uchar4 b, uint acc) {
  return add_sat(dot(a, b), acc);
}
OVL int dot_acc_sat(char4 a, char4 b, int acc) {
  return add_sat(dot(a, b), acc);
}
OVL int dot_acc_sat(char4 a, uchar4 b, int acc) {
  return add_sat(dot(a, b), acc);
}
OVL int dot_acc_sat(uchar4 a, char4 b, int acc) {
  return add_sat(dot(a, b), acc);
}

// The packed forms hold the four 8-bit components in a 32-bit value, component 0 lowest.
OVL uint dot_4x8packed_uu_uint(uint a, uint b) {
  return dot(as_uchar4(a), as_uchar4(b));
}
OVL int dot_4x8packed_ss_int(uint a, uint b) {
  return dot(as_char4(a), as_char4(b));
}
OVL int dot_4x8packed_su_int(uint a, uint b) {
  return dot(as_char4(a), as_uchar4(b));
}
OVL int dot_4x8packed_us_int(uint a, uint b) {
  return dot(as_uchar4(a), as_char4(b));
}

OVL uint dot_acc_sat_4x8packed_uu_uint(uint a, uint b, uint acc) {
  return add_sat(dot_4x8packed_uu_uint(a, b), acc);
}
OVL int dot_acc_sat_4x8packed_ss_int(uint a, uint b, int acc) {
  return add_sat(dot_4x8packed_ss_int(a, b), acc);
}
OVL int dot_acc_sat_4x8packed_su_int(uint a, uint b, int acc) {
  return add_sat(dot_4x8packed_su_int(a, b), acc);
}
OVL int dot_acc_sat_4x8packed_us_int(uint a, uint b, int acc) {
  return add_sat(dot_4x8packed_us_int(a, b), acc);
}
