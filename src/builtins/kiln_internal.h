// Macros shared by the files of the builtin library. The OpenCL C builtins come in many
// overloads (scalar and vector widths 2, 3, 4, 8, 16, several element types, several address
// spaces); these macros write the overloads from one definition.
#ifndef KILN_INTERNAL_H
#define KILN_INTERNAL_H

// half values (cl_khr_fp16) are ordinary values in the library.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define OVL __attribute__((overloadable))

// The vector of N elements of scalar type S; N = 1 is S itself.
// (The extra level expands macro arguments before they are pasted.)
#define KILN_VT(S, N) KILN_VT_I(S, N)
#define KILN_VT_I(S, N) KILN_VT_##N(S)
#define KILN_VT_1(S) S
#define KILN_VT_2(S) S##2
#define KILN_VT_3(S) S##3
#define KILN_VT_4(S) S##4
#define KILN_VT_8(S) S##8
#define KILN_VT_16(S) S##16

// Token pasting after macro expansion of both sides.
#define KILN_CAT(a, b) KILN_CAT_I(a, b)
#define KILN_CAT_I(a, b) a##b

// (S##N)x: element-wise conversion to the vector of N elements of scalar type S (the C cast
// rules: integers wrap, floating-point values truncate).
#define KILN_CONVERT(S, N, x) KILN_CONVERT_I(S, N, x)
#define KILN_CONVERT_I(S, N, x) KILN_CONVERT_##N(S, x)
#define KILN_CONVERT_1(S, x) ((S)(x))
#define KILN_CONVERT_2(S, x) __builtin_convertvector((x), S##2)
#define KILN_CONVERT_3(S, x) __builtin_convertvector((x), S##3)
#define KILN_CONVERT_4(S, x) __builtin_convertvector((x), S##4)
#define KILN_CONVERT_8(S, x) __builtin_convertvector((x), S##8)
#define KILN_CONVERT_16(S, x) __builtin_convertvector((x), S##16)

// M(S, N) for each width N: all widths, and the vector widths only.
#define KILN_EACH_WIDTH(S, M) M(S, 1) M(S, 2) M(S, 3) M(S, 4) M(S, 8) M(S, 16)
#define KILN_EACH_VWIDTH(S, M) M(S, 2) M(S, 3) M(S, 4) M(S, 8) M(S, 16)

// M(S, ...) for each scalar type of a family.
#define KILN_SIGNED_TYPES(M, ...)                                                                  \
  M(char, __VA_ARGS__) M(short, __VA_ARGS__) M(int, __VA_ARGS__) M(long, __VA_ARGS__)
#define KILN_UNSIGNED_TYPES(M, ...)                                                                \
  M(uchar, __VA_ARGS__) M(ushort, __VA_ARGS__) M(uint, __VA_ARGS__) M(ulong, __VA_ARGS__)
#define KILN_INTEGER_TYPES(M, ...)                                                                 \
  KILN_SIGNED_TYPES(M, __VA_ARGS__)                                                                \
  KILN_UNSIGNED_TYPES(M, __VA_ARGS__)
#define KILN_FLOAT_TYPES(M, ...) M(float, __VA_ARGS__) M(double, __VA_ARGS__)
#define KILN_ALL_TYPES(M, ...) KILN_INTEGER_TYPES(M, __VA_ARGS__) KILN_FLOAT_TYPES(M, __VA_ARGS__)

// Vector overloads of an element-wise function F built from its scalar overload, by splitting
// the vector in halves (components for widths 2 and 3). The optimizer sees through the
// splitting once everything is inlined. RT and the argument types are scalar type names.
// A builtin that is the C library's function: scalar and, component by component, vectors.
#define KILN_HOST1(T, F, HOST)                                                                     \
  OVL T F(T x) {                                                                                   \
    return HOST(x);                                                                                \
  }                                                                                                \
  KILN_SPLIT1(T, F, T)
#define KILN_HOST2(T, F, HOST)                                                                     \
  OVL T F(T x, T y) {                                                                              \
    return HOST(x, y);                                                                             \
  }                                                                                                \
  KILN_SPLIT2(T, F, T, T)

#define KILN_SPLIT1(RT, F, AT)                                                                     \
  OVL RT##2 F(AT##2 a) {                                                                           \
    return (RT##2)(F(a.s0), F(a.s1));                                                              \
  }                                                                                                \
  OVL RT##3 F(AT##3 a) {                                                                           \
    return (RT##3)(F(a.s0), F(a.s1), F(a.s2));                                                     \
  }                                                                                                \
  OVL RT##4 F(AT##4 a) {                                                                           \
    return (RT##4)(F(a.lo), F(a.hi));                                                              \
  }                                                                                                \
  OVL RT##8 F(AT##8 a) {                                                                           \
    return (RT##8)(F(a.lo), F(a.hi));                                                              \
  }                                                                                                \
  OVL RT##16 F(AT##16 a) {                                                                         \
    return (RT##16)(F(a.lo), F(a.hi));                                                             \
  }

#define KILN_SPLIT2(RT, F, AT, BT)                                                                 \
  OVL RT##2 F(AT##2 a, BT##2 b) {                                                                  \
    return (RT##2)(F(a.s0, b.s0), F(a.s1, b.s1));                                                  \
  }                                                                                                \
  OVL RT##3 F(AT##3 a, BT##3 b) {                                                                  \
    return (RT##3)(F(a.s0, b.s0), F(a.s1, b.s1), F(a.s2, b.s2));                                   \
  }                                                                                                \
  OVL RT##4 F(AT##4 a, BT##4 b) {                                                                  \
    return (RT##4)(F(a.lo, b.lo), F(a.hi, b.hi));                                                  \
  }                                                                                                \
  OVL RT##8 F(AT##8 a, BT##8 b) {                                                                  \
    return (RT##8)(F(a.lo, b.lo), F(a.hi, b.hi));                                                  \
  }                                                                                                \
  OVL RT##16 F(AT##16 a, BT##16 b) {                                                               \
    return (RT##16)(F(a.lo, b.lo), F(a.hi, b.hi));                                                 \
  }

#define KILN_SPLIT3(RT, F, AT, BT, CT)                                                             \
  OVL RT##2 F(AT##2 a, BT##2 b, CT##2 c) {                                                         \
    return (RT##2)(F(a.s0, b.s0, c.s0), F(a.s1, b.s1, c.s1));                                      \
  }                                                                                                \
  OVL RT##3 F(AT##3 a, BT##3 b, CT##3 c) {                                                         \
    return (RT##3)(F(a.s0, b.s0, c.s0), F(a.s1, b.s1, c.s1), F(a.s2, b.s2, c.s2));                 \
  }                                                                                                \
  OVL RT##4 F(AT##4 a, BT##4 b, CT##4 c) {                                                         \
    return (RT##4)(F(a.lo, b.lo, c.lo), F(a.hi, b.hi, c.hi));                                      \
  }                                                                                                \
  OVL RT##8 F(AT##8 a, BT##8 b, CT##8 c) {                                                         \
    return (RT##8)(F(a.lo, b.lo, c.lo), F(a.hi, b.hi, c.hi));                                      \
  }                                                                                                \
  OVL RT##16 F(AT##16 a, BT##16 b, CT##16 c) {                                                     \
    return (RT##16)(F(a.lo, b.lo, c.lo), F(a.hi, b.hi, c.hi));                                     \
  }

// RTn F(ATn a, BT b): the scalar second argument broadcast to the vector overload.
#define KILN_BROADCAST2(RT, F, AT, BT)                                                             \
  OVL RT##2 F(AT##2 a, BT b) {                                                                     \
    return F(a, (BT##2)b);                                                                         \
  }                                                                                                \
  OVL RT##3 F(AT##3 a, BT b) {                                                                     \
    return F(a, (BT##3)b);                                                                         \
  }                                                                                                \
  OVL RT##4 F(AT##4 a, BT b) {                                                                     \
    return F(a, (BT##4)b);                                                                         \
  }                                                                                                \
  OVL RT##8 F(AT##8 a, BT b) {                                                                     \
    return F(a, (BT##8)b);                                                                         \
  }                                                                                                \
  OVL RT##16 F(AT##16 a, BT b) {                                                                   \
    return F(a, (BT##16)b);                                                                        \
  }

// Functions that return a second result through a pointer: F(AT a, PT *p) -> RT. Given the
// scalar overload for a __private pointer, defines the vector overloads for __private pointers
// (by splitting) and every overload for the __global, __local and generic address spaces (on a
// private temporary).
#define KILN_PTR_SPLIT_V(RT, F, AT, PT, N, H)                                                      \
  OVL RT##N F(AT##N a, __private PT##N *p) {                                                       \
    PT##H lo, hi;                                                                                  \
    RT##N r = (RT##N)(F(a.lo, &lo), F(a.hi, &hi));                                                 \
    *p = (PT##N)(lo, hi);                                                                          \
    return r;                                                                                      \
  }
#define KILN_PTR_OTHER_AS(RT, F, AT, PT, AS)                                                       \
  OVL RT F(AT a, AS PT *p) {                                                                       \
    PT t;                                                                                          \
    RT r = F(a, &t);                                                                               \
    *p = t;                                                                                        \
    return r;                                                                                      \
  }
#define KILN_PTR_ALL_AS(RT, F, AT, PT)                                                             \
  KILN_PTR_OTHER_AS(RT, F, AT, PT, __global)                                                       \
  KILN_PTR_OTHER_AS(RT, F, AT, PT, __local)                                                        \
  KILN_PTR_OTHER_AS(RT, F, AT, PT, __generic)
#define KILN_PTR_SPLIT(RT, F, AT, PT)                                                              \
  OVL RT##2 F(AT##2 a, __private PT##2 * p) {                                                      \
    PT lo, hi;                                                                                     \
    RT##2 r = (RT##2)(F(a.s0, &lo), F(a.s1, &hi));                                                 \
    *p = (PT##2)(lo, hi);                                                                          \
    return r;                                                                                      \
  }                                                                                                \
  OVL RT##3 F(AT##3 a, __private PT##3 * p) {                                                      \
    PT##2 lo;                                                                                      \
    PT hi;                                                                                         \
    RT##3 r = (RT##3)(F(a.s01, &lo), F(a.s2, &hi));                                                \
    *p = (PT##3)(lo, hi);                                                                          \
    return r;                                                                                      \
  }                                                                                                \
  KILN_PTR_SPLIT_V(RT, F, AT, PT, 4, 2)                                                            \
  KILN_PTR_SPLIT_V(RT, F, AT, PT, 8, 4)                                                            \
  KILN_PTR_SPLIT_V(RT, F, AT, PT, 16, 8)                                                           \
  KILN_PTR_ALL_AS(RT, F, AT, PT)                                                                   \
  KILN_PTR_ALL_AS(RT##2, F, AT##2, PT##2)                                                          \
  KILN_PTR_ALL_AS(RT##3, F, AT##3, PT##3)                                                          \
  KILN_PTR_ALL_AS(RT##4, F, AT##4, PT##4)                                                          \
  KILN_PTR_ALL_AS(RT##8, F, AT##8, PT##8)                                                          \
  KILN_PTR_ALL_AS(RT##16, F, AT##16, PT##16)

// The same for two value arguments: F(AT a, BT b, PT *p) -> RT (remquo).
#define KILN_PTR2_SPLIT_V(RT, F, AT, BT, PT, N, H)                                                 \
  OVL RT##N F(AT##N a, BT##N b, __private PT##N *p) {                                              \
    PT##H lo, hi;                                                                                  \
    RT##N r = (RT##N)(F(a.lo, b.lo, &lo), F(a.hi, b.hi, &hi));                                     \
    *p = (PT##N)(lo, hi);                                                                          \
    return r;                                                                                      \
  }
#define KILN_PTR2_OTHER_AS(RT, F, AT, BT, PT, AS)                                                  \
  OVL RT F(AT a, BT b, AS PT *p) {                                                                 \
    PT t;                                                                                          \
    RT r = F(a, b, &t);                                                                            \
    *p = t;                                                                                        \
    return r;                                                                                      \
  }
#define KILN_PTR2_ALL_AS(RT, F, AT, BT, PT)                                                        \
  KILN_PTR2_OTHER_AS(RT, F, AT, BT, PT, __global)                                                  \
  KILN_PTR2_OTHER_AS(RT, F, AT, BT, PT, __local)                                                   \
  KILN_PTR2_OTHER_AS(RT, F, AT, BT, PT, __generic)
#define KILN_PTR2_SPLIT(RT, F, AT, BT, PT)                                                         \
  OVL RT##2 F(AT##2 a, BT##2 b, __private PT##2 * p) {                                             \
    PT lo, hi;                                                                                     \
    RT##2 r = (RT##2)(F(a.s0, b.s0, &lo), F(a.s1, b.s1, &hi));                                     \
    *p = (PT##2)(lo, hi);                                                                          \
    return r;                                                                                      \
  }                                                                                                \
  OVL RT##3 F(AT##3 a, BT##3 b, __private PT##3 * p) {                                             \
    PT##2 lo;                                                                                      \
    PT hi;                                                                                         \
    RT##3 r = (RT##3)(F(a.s01, b.s01, &lo), F(a.s2, b.s2, &hi));                                   \
    *p = (PT##3)(lo, hi);                                                                          \
    return r;                                                                                      \
  }                                                                                                \
  KILN_PTR2_SPLIT_V(RT, F, AT, BT, PT, 4, 2)                                                       \
  KILN_PTR2_SPLIT_V(RT, F, AT, BT, PT, 8, 4)                                                       \
  KILN_PTR2_SPLIT_V(RT, F, AT, BT, PT, 16, 8)                                                      \
  KILN_PTR2_ALL_AS(RT, F, AT, BT, PT)                                                              \
  KILN_PTR2_ALL_AS(RT##2, F, AT##2, BT##2, PT##2)                                                  \
  KILN_PTR2_ALL_AS(RT##3, F, AT##3, BT##3, PT##3)                                                  \
  KILN_PTR2_ALL_AS(RT##4, F, AT##4, BT##4, PT##4)                                                  \
  KILN_PTR2_ALL_AS(RT##8, F, AT##8, BT##8, PT##8)                                                  \
  KILN_PTR2_ALL_AS(RT##16, F, AT##16, BT##16, PT##16)

#endif
