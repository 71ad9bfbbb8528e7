// Vector data load and store functions (OpenCL C 3.0 section 6.15.7): vloadn/vstoren for every
// element type (half included: they only move bits), and the float/double <-> half
// conversions in memory (vload_half, vloada_half, vstore_half, vstorea_half with every
// rounding mode).
#include "kiln_internal.h"

// vloadn and vstoren need p aligned only to the element: vector types of element alignment.
// vload3/vstore3 touch exactly three elements.
#define KILN_UNALIGNED_TYPES(S)                                                                    \
  typedef S##2 kiln_unaligned_##S##2 __attribute__((aligned(sizeof(S))));                          \
  typedef S##4 kiln_unaligned_##S##4 __attribute__((aligned(sizeof(S))));                          \
  typedef S##8 kiln_unaligned_##S##8 __attribute__((aligned(sizeof(S))));                          \
  typedef S##16 kiln_unaligned_##S##16 __attribute__((aligned(sizeof(S))));

#define KILN_VLOAD(S, N, AS)                                                                       \
  OVL S##N vload##N(size_t offset, const AS S *p) {                                                \
    return *(const AS kiln_unaligned_##S##N *)(p + offset * N);                                    \
  }
#define KILN_VSTORE(S, N, AS)                                                                      \
  OVL void vstore##N(S##N data, size_t offset, AS S *p) {                                          \
    *(AS kiln_unaligned_##S##N *)(p + offset * N) = data;                                          \
  }
#define KILN_VLOAD_VSTORE_AS(S, AS)                                                                \
  KILN_VLOAD(S, 2, AS)                                                                             \
  KILN_VLOAD(S, 4, AS)                                                                             \
  KILN_VLOAD(S, 8, AS)                                                                             \
  KILN_VLOAD(S, 16, AS)                                                                            \
  OVL S##3 vload3(size_t offset, const AS S *p) {                                                  \
    const AS S *q = p + offset * 3;                                                                \
    return (S##3)(q[0], q[1], q[2]);                                                               \
  }
#define KILN_VSTORE_AS(S, AS)                                                                      \
  KILN_VSTORE(S, 2, AS)                                                                            \
  KILN_VSTORE(S, 4, AS)                                                                            \
  KILN_VSTORE(S, 8, AS)                                                                            \
  KILN_VSTORE(S, 16, AS)                                                                           \
  OVL void vstore3(S##3 data, size_t offset, AS S *p) {                                            \
    AS S *q = p + offset * 3;                                                                      \
    q[0] = data.s0;                                                                                \
    q[1] = data.s1;                                                                                \
    q[2] = data.s2;                                                                                \
  }
#define KILN_VLOAD_VSTORE(S, ...)                                                                  \
  KILN_UNALIGNED_TYPES(S)                                                                          \
  KILN_VLOAD_VSTORE_AS(S, __global)                                                                \
  KILN_VLOAD_VSTORE_AS(S, __local)                                                                 \
  KILN_VLOAD_VSTORE_AS(S, __constant)                                                              \
  KILN_VLOAD_VSTORE_AS(S, __private)                                                               \
  KILN_VLOAD_VSTORE_AS(S, __generic)                                                               \
  KILN_VSTORE_AS(S, __global)                                                                      \
  KILN_VSTORE_AS(S, __local)                                                                       \
  KILN_VSTORE_AS(S, __private)                                                                     \
  KILN_VSTORE_AS(S, __generic)

KILN_ALL_TYPES(KILN_VLOAD_VSTORE)

// half vectors move as their bits: dereferencing half pointers needs more than the library
// may assume of the program.
#define KILN_HALF_VLOAD(N, AS)                                                                     \
  OVL half##N vload##N(size_t offset, const AS half *p) {                                          \
    return as_half##N(vload##N(offset, (const AS ushort *)p));                                     \
  }
#define KILN_HALF_VSTORE(N, AS)                                                                    \
  OVL void vstore##N(half##N data, size_t offset, AS half *p) {                                    \
    vstore##N(as_ushort##N(data), offset, (AS ushort *)p);                                         \
  }
#define KILN_HALF_VLOAD_VSTORE(N)                                                                  \
  KILN_HALF_VLOAD(N, __global)                                                                     \
  KILN_HALF_VLOAD(N, __local)                                                                      \
  KILN_HALF_VLOAD(N, __constant)                                                                   \
  KILN_HALF_VLOAD(N, __private)                                                                    \
  KILN_HALF_VLOAD(N, __generic)                                                                    \
  KILN_HALF_VSTORE(N, __global)                                                                    \
  KILN_HALF_VSTORE(N, __local)                                                                     \
  KILN_HALF_VSTORE(N, __private)                                                                   \
  KILN_HALF_VSTORE(N, __generic)
KILN_HALF_VLOAD_VSTORE(2)
KILN_HALF_VLOAD_VSTORE(3)
KILN_HALF_VLOAD_VSTORE(4)
KILN_HALF_VLOAD_VSTORE(8)
KILN_HALF_VLOAD_VSTORE(16)

// The conversions of half bits: kiln_from_half, kiln_to_half_{rte,rtz,rtp,rtn}.
#define KILN_TEMPLATE "vector_data_gentype.h"
#include "kiln_gentype_float.h"
#undef KILN_TEMPLATE

// vload_halfn reads n halves at p + offset * n; vloada_halfn reads them at an address aligned
// to the vector, p + offset * n, except that a 3-vector takes the room of 4.
#define KILN_VLOAD_HALF_AS(AS)                                                                     \
  OVL float vload_half(size_t offset, const AS half *p) {                                          \
    return kiln_from_half(((const AS ushort *)p)[offset]);                                         \
  }                                                                                                \
  OVL float3 vload_half3(size_t offset, const AS half *p) {                                        \
    return kiln_from_half(vload3(offset, (const AS ushort *)p));                                   \
  }                                                                                                \
  OVL float3 vloada_half3(size_t offset, const AS half *p) {                                       \
    return kiln_from_half(((const AS ushort4 *)p)[offset].s012);                                   \
  }                                                                                                \
  KILN_VLOAD_HALF_N(AS, 2)                                                                         \
  KILN_VLOAD_HALF_N(AS, 4)                                                                         \
  KILN_VLOAD_HALF_N(AS, 8)                                                                         \
  KILN_VLOAD_HALF_N(AS, 16)
#define KILN_VLOAD_HALF_N(AS, N)                                                                   \
  OVL float##N vload_half##N(size_t offset, const AS half *p) {                                    \
    return kiln_from_half(vload##N(offset, (const AS ushort *)p));                                 \
  }                                                                                                \
  OVL float##N vloada_half##N(size_t offset, const AS half *p) {                                   \
    return kiln_from_half(((const AS ushort##N *)p)[offset]);                                      \
  }
KILN_VLOAD_HALF_AS(__global)
KILN_VLOAD_HALF_AS(__local)
KILN_VLOAD_HALF_AS(__constant)
KILN_VLOAD_HALF_AS(__private)
KILN_VLOAD_HALF_AS(__generic)

// vstore_half[n][_mode] and vstorea_half[n][_mode] for float and double data; without a mode
// they round to nearest even (the default rounding mode).
#define KILN_VSTORE_HALF_N(S, N, AS, SUFFIX, MODE)                                                 \
  OVL void vstore_half##N##SUFFIX(S##N data, size_t offset, AS half *p) {                          \
    vstore##N(kiln_to_half_##MODE(data), offset, (AS ushort *)p);                                  \
  }                                                                                                \
  OVL void vstorea_half##N##SUFFIX(S##N data, size_t offset, AS half *p) {                         \
    ((AS ushort##N *)p)[offset] = kiln_to_half_##MODE(data);                                       \
  }
#define KILN_VSTORE_HALF_MODE(S, AS, SUFFIX, MODE)                                                 \
  OVL void vstore_half##SUFFIX(S data, size_t offset, AS half *p) {                                \
    ((AS ushort *)p)[offset] = kiln_to_half_##MODE(data);                                          \
  }                                                                                                \
  OVL void vstore_half3##SUFFIX(S##3 data, size_t offset, AS half *p) {                            \
    vstore3(kiln_to_half_##MODE(data), offset, (AS ushort *)p);                                    \
  }                                                                                                \
  OVL void vstorea_half3##SUFFIX(S##3 data, size_t offset, AS half *p) {                           \
    AS ushort *q = (AS ushort *)p + offset * 4;                                                    \
    ushort3 h = kiln_to_half_##MODE(data);                                                         \
    q[0] = h.s0;                                                                                   \
    q[1] = h.s1;                                                                                   \
    q[2] = h.s2;                                                                                   \
  }                                                                                                \
  KILN_VSTORE_HALF_N(S, 2, AS, SUFFIX, MODE)                                                       \
  KILN_VSTORE_HALF_N(S, 4, AS, SUFFIX, MODE)                                                       \
  KILN_VSTORE_HALF_N(S, 8, AS, SUFFIX, MODE)                                                       \
  KILN_VSTORE_HALF_N(S, 16, AS, SUFFIX, MODE)
#define KILN_VSTORE_HALF_AS(S, AS)                                                                 \
  KILN_VSTORE_HALF_MODE(S, AS, , rte)                                                              \
  KILN_VSTORE_HALF_MODE(S, AS, _rte, rte)                                                          \
  KILN_VSTORE_HALF_MODE(S, AS, _rtz, rtz)                                                          \
  KILN_VSTORE_HALF_MODE(S, AS, _rtp, rtp)                                                          \
  KILN_VSTORE_HALF_MODE(S, AS, _rtn, rtn)
#define KILN_VSTORE_HALF(S)                                                                        \
  KILN_VSTORE_HALF_AS(S, __global)                                                                 \
  KILN_VSTORE_HALF_AS(S, __local)                                                                  \
  KILN_VSTORE_HALF_AS(S, __private)                                                                \
  KILN_VSTORE_HALF_AS(S, __generic)
KILN_VSTORE_HALF(float)
KILN_VSTORE_HALF(double)
