// Declarations of the builtins of extensions Kiln offers that Clang's builtin tables
// (-fdeclare-opencl-builtins) lack: cl_intel_subgroups and its char, short and long companions,
// and the sub-group extensions in OpenCL C 1.x programs.
// A compile includes it after opencl-c-base.h when the program's text has `sub_group` in it
// (clang_invocation.cpp): every function declared here must have that in its name. The builtin
// library defines the functions (src/builtins/subgroups.cl, image.cl).
#ifndef KILN_EXTENSION_BUILTINS_H
#define KILN_EXTENSION_BUILTINS_H

#define __kiln_ovld_conv __attribute__((overloadable, convergent))

// The half overloads need half as a type, which a program has only after its own pragma:
// enabled here for the declarations, and left as a program starts (disabled) at the end.
#if defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#if defined(cl_intel_subgroups)

#define __KILN_INTEL_SHUFFLES(T)                                                                   \
  T __kiln_ovld_conv intel_sub_group_shuffle(T, uint);                                             \
  T __kiln_ovld_conv intel_sub_group_shuffle_down(T, T, uint);                                     \
  T __kiln_ovld_conv intel_sub_group_shuffle_up(T, T, uint);                                       \
  T __kiln_ovld_conv intel_sub_group_shuffle_xor(T, uint);                                         \
  T __kiln_ovld_conv intel_sub_group_broadcast(T, uint);
#define __KILN_INTEL_SHUFFLES_ALL_WIDTHS(S)                                                        \
  __KILN_INTEL_SHUFFLES(S)                                                                         \
  __KILN_INTEL_SHUFFLES(S##2)                                                                      \
  __KILN_INTEL_SHUFFLES(S##3)                                                                      \
  __KILN_INTEL_SHUFFLES(S##4)                                                                      \
  __KILN_INTEL_SHUFFLES(S##8) __KILN_INTEL_SHUFFLES(S##16)
#define __KILN_INTEL_GROUP_OPS(T)                                                                  \
  T __kiln_ovld_conv intel_sub_group_reduce_add(T);                                                \
  T __kiln_ovld_conv intel_sub_group_reduce_min(T);                                                \
  T __kiln_ovld_conv intel_sub_group_reduce_max(T);                                                \
  T __kiln_ovld_conv intel_sub_group_scan_inclusive_add(T);                                        \
  T __kiln_ovld_conv intel_sub_group_scan_inclusive_min(T);                                        \
  T __kiln_ovld_conv intel_sub_group_scan_inclusive_max(T);                                        \
  T __kiln_ovld_conv intel_sub_group_scan_exclusive_add(T);                                        \
  T __kiln_ovld_conv intel_sub_group_scan_exclusive_min(T);                                        \
  T __kiln_ovld_conv intel_sub_group_scan_exclusive_max(T);
#define __KILN_INTEL_INTEGER_TYPES(M)                                                              \
  M(char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong)
__KILN_INTEL_INTEGER_TYPES(__KILN_INTEL_SHUFFLES_ALL_WIDTHS)
__KILN_INTEL_SHUFFLES_ALL_WIDTHS(float)
// The intel_sub_group_ reductions and scans are the char and short companions' names, for
// integers only (floating point has the sub_group_ ones).
__KILN_INTEL_INTEGER_TYPES(__KILN_INTEL_GROUP_OPS)
#if defined(cl_khr_fp64)
__KILN_INTEL_SHUFFLES_ALL_WIDTHS(double)
#endif
#if defined(cl_khr_fp16)
__KILN_INTEL_SHUFFLES_ALL_WIDTHS(half)
#endif

// Block reads and writes: buffers, and 2D images where the device has images.
#define __KILN_INTEL_BUFFER_BLOCK(S, NAME, N)                                                      \
  S __kiln_ovld_conv intel_sub_group_block_read##NAME(const __global __KILN_ELEMENT_##NAME *);     \
  void __kiln_ovld_conv intel_sub_group_block_write##NAME(__global __KILN_ELEMENT_##NAME *, S);
#if defined(__opencl_c_images)
#define __KILN_INTEL_IMAGE_BLOCK(S, NAME)                                                          \
  S __kiln_ovld_conv intel_sub_group_block_read##NAME(read_only image2d_t, int2);                  \
  void __kiln_ovld_conv intel_sub_group_block_write##NAME(write_only image2d_t, int2, S);
#if defined(__opencl_c_read_write_images)
#define __KILN_INTEL_IMAGE_BLOCK_RW(S, NAME)                                                       \
  S __kiln_ovld_conv intel_sub_group_block_read##NAME(read_write image2d_t, int2);                 \
  void __kiln_ovld_conv intel_sub_group_block_write##NAME(read_write image2d_t, int2, S);
#else
#define __KILN_INTEL_IMAGE_BLOCK_RW(S, NAME)
#endif
#else
#define __KILN_INTEL_IMAGE_BLOCK(S, NAME)
#define __KILN_INTEL_IMAGE_BLOCK_RW(S, NAME)
#endif
#define __KILN_INTEL_BLOCK(S, NAME)                                                                \
  __KILN_INTEL_BUFFER_BLOCK(S, NAME, 1)                                                            \
  __KILN_INTEL_IMAGE_BLOCK(S, NAME) __KILN_INTEL_IMAGE_BLOCK_RW(S, NAME)
#define __KILN_INTEL_BLOCKS(S, NAME)                                                               \
  __KILN_INTEL_BLOCK(S, NAME)                                                                      \
  __KILN_INTEL_BLOCK(S##2, NAME##2)                                                                \
  __KILN_INTEL_BLOCK(S##4, NAME##4) __KILN_INTEL_BLOCK(S##8, NAME##8)
#define __KILN_ELEMENT_ uint
#define __KILN_ELEMENT_2 uint
#define __KILN_ELEMENT_4 uint
#define __KILN_ELEMENT_8 uint
__KILN_INTEL_BLOCKS(uint, )
#endif // cl_intel_subgroups

#if defined(cl_intel_subgroups_char) || defined(cl_intel_subgroups_short) ||                       \
    defined(cl_intel_subgroups_long)
#define __KILN_ELEMENT__ui uint
#define __KILN_ELEMENT__ui2 uint
#define __KILN_ELEMENT__ui4 uint
#define __KILN_ELEMENT__ui8 uint
__KILN_INTEL_BLOCKS(uint, _ui)
#endif
#if defined(cl_intel_subgroups_short)
#define __KILN_ELEMENT__us ushort
#define __KILN_ELEMENT__us2 ushort
#define __KILN_ELEMENT__us4 ushort
#define __KILN_ELEMENT__us8 ushort
#define __KILN_ELEMENT__us16 ushort
__KILN_INTEL_BLOCKS(ushort, _us)
__KILN_INTEL_BLOCK(ushort16, _us16)
#endif
#if defined(cl_intel_subgroups_char)
#define __KILN_ELEMENT__uc uchar
#define __KILN_ELEMENT__uc2 uchar
#define __KILN_ELEMENT__uc4 uchar
#define __KILN_ELEMENT__uc8 uchar
#define __KILN_ELEMENT__uc16 uchar
__KILN_INTEL_BLOCKS(uchar, _uc)
__KILN_INTEL_BLOCK(uchar16, _uc16)
#endif
#if defined(cl_intel_subgroups_long)
#define __KILN_ELEMENT__ul ulong
#define __KILN_ELEMENT__ul2 ulong
#define __KILN_ELEMENT__ul4 ulong
#define __KILN_ELEMENT__ul8 ulong
__KILN_INTEL_BLOCKS(ulong, _ul)
__KILN_INTEL_IMAGE_BLOCK(ulong16, _ul16)
__KILN_INTEL_IMAGE_BLOCK_RW(ulong16, _ul16)
#endif

// Sub-groups in OpenCL C 1.x programs. Clang offers cl_khr_subgroups and the cl_khr_subgroup_*
// extensions from OpenCL C 2.0 only, and so do its builtin tables; but a program built without
// -cl-std is OpenCL C 1.2 (CL_DEVICE_OPENCL_C_VERSION of an OpenCL 3.0 device), and programs use
// the sub-group functions of the extensions a device lists whatever their version, as they can
// on other OpenCL 3.0 implementations. The compiler defines __kiln_sub_groups and the macros of
// the listed extensions for such programs (clang_invocation.cpp); their functions are declared
// here (those that need OpenCL C 2.0 types, memory_scope and pipes, are not).
#if __OPENCL_C_VERSION__ < 200 && defined(__kiln_sub_groups)

#define __kiln_sg_ovld __attribute__((overloadable))
#if defined(cl_khr_fp64)
#define __KILN_SG_DOUBLE(M) M(double)
#else
#define __KILN_SG_DOUBLE(M)
#endif
#if defined(cl_khr_fp16)
#define __KILN_SG_HALF(M) M(half)
#else
#define __KILN_SG_HALF(M)
#endif
#define __KILN_SG_WIDE_TYPES(M)                                                                    \
  M(int) M(uint) M(long) M(ulong) M(float) __KILN_SG_DOUBLE(M) __KILN_SG_HALF(M)
#define __KILN_SG_NARROW_TYPES(M) M(char) M(uchar) M(short) M(ushort)
#define __KILN_SG_TYPES(M) __KILN_SG_NARROW_TYPES(M) __KILN_SG_WIDE_TYPES(M)
#define __KILN_SG_VECTORS(M, S) M(S) M(S##2) M(S##3) M(S##4) M(S##8) M(S##16)

uint __kiln_sg_ovld get_sub_group_size(void);
uint __kiln_sg_ovld get_max_sub_group_size(void);
uint __kiln_sg_ovld get_num_sub_groups(void);
uint __kiln_sg_ovld get_enqueued_num_sub_groups(void);
uint __kiln_sg_ovld get_sub_group_id(void);
uint __kiln_sg_ovld get_sub_group_local_id(void);
void __kiln_ovld_conv sub_group_barrier(cl_mem_fence_flags);
int __kiln_ovld_conv sub_group_all(int);
int __kiln_ovld_conv sub_group_any(int);

#define __KILN_SG_BROADCAST(T) T __kiln_ovld_conv sub_group_broadcast(T, uint);
#define __KILN_SG_SCANS(PREFIX, T, op)                                                             \
  T __kiln_ovld_conv PREFIX##_reduce_##op(T);                                                      \
  T __kiln_ovld_conv PREFIX##_scan_inclusive_##op(T);                                              \
  T __kiln_ovld_conv PREFIX##_scan_exclusive_##op(T);
#define __KILN_SG_ARITHMETIC(T)                                                                    \
  __KILN_SG_SCANS(sub_group, T, add)                                                               \
  __KILN_SG_SCANS(sub_group, T, min) __KILN_SG_SCANS(sub_group, T, max)
__KILN_SG_WIDE_TYPES(__KILN_SG_BROADCAST)
__KILN_SG_WIDE_TYPES(__KILN_SG_ARITHMETIC)

#if defined(cl_khr_subgroup_extended_types)
#define __KILN_SG_BROADCAST_VECTORS(S) __KILN_SG_VECTORS(__KILN_SG_BROADCAST, S)
__KILN_SG_NARROW_TYPES(__KILN_SG_BROADCAST)
__KILN_SG_NARROW_TYPES(__KILN_SG_ARITHMETIC)
#define __KILN_SG_BROADCAST_WIDE_VECTORS(S)                                                        \
  __KILN_SG_BROADCAST(S##2)                                                                        \
  __KILN_SG_BROADCAST(S##3)                                                                        \
  __KILN_SG_BROADCAST(S##4) __KILN_SG_BROADCAST(S##8) __KILN_SG_BROADCAST(S##16)
__KILN_SG_TYPES(__KILN_SG_BROADCAST_WIDE_VECTORS)
#endif

#if defined(cl_khr_subgroup_non_uniform_vote)
int __kiln_ovld_conv sub_group_elect(void);
int __kiln_ovld_conv sub_group_non_uniform_all(int);
int __kiln_ovld_conv sub_group_non_uniform_any(int);
#define __KILN_SG_ALL_EQUAL(T) int __kiln_ovld_conv sub_group_non_uniform_all_equal(T);
__KILN_SG_TYPES(__KILN_SG_ALL_EQUAL)
#endif

#if defined(cl_khr_subgroup_ballot)
#define __KILN_SG_NON_UNIFORM_BROADCAST(T)                                                         \
  T __kiln_ovld_conv sub_group_non_uniform_broadcast(T, uint);
#define __KILN_SG_BALLOT_BROADCASTS(S)                                                             \
  __KILN_SG_VECTORS(__KILN_SG_NON_UNIFORM_BROADCAST, S)                                            \
  S __kiln_ovld_conv sub_group_broadcast_first(S);
__KILN_SG_TYPES(__KILN_SG_BALLOT_BROADCASTS)
uint4 __kiln_ovld_conv sub_group_ballot(int);
int __kiln_ovld_conv sub_group_inverse_ballot(uint4);
int __kiln_ovld_conv sub_group_ballot_bit_extract(uint4, uint);
uint __kiln_ovld_conv sub_group_ballot_bit_count(uint4);
uint __kiln_ovld_conv sub_group_ballot_inclusive_scan(uint4);
uint __kiln_ovld_conv sub_group_ballot_exclusive_scan(uint4);
uint __kiln_ovld_conv sub_group_ballot_find_lsb(uint4);
uint __kiln_ovld_conv sub_group_ballot_find_msb(uint4);
uint4 __kiln_sg_ovld get_sub_group_eq_mask(void);
uint4 __kiln_sg_ovld get_sub_group_ge_mask(void);
uint4 __kiln_sg_ovld get_sub_group_gt_mask(void);
uint4 __kiln_sg_ovld get_sub_group_le_mask(void);
uint4 __kiln_sg_ovld get_sub_group_lt_mask(void);
#endif

// The operations of the non-uniform and clustered families: `M(T, op)` for each type and op.
#if defined(cl_khr_fp64)
#define __KILN_SG_DOUBLE_OP(M, op) M(double, op)
#else
#define __KILN_SG_DOUBLE_OP(M, op)
#endif
#if defined(cl_khr_fp16)
#define __KILN_SG_HALF_OP(M, op) M(half, op)
#else
#define __KILN_SG_HALF_OP(M, op)
#endif
#define __KILN_SG_OVER_INTEGERS(M, op)                                                             \
  M(char, op)                                                                                      \
  M(uchar, op) M(short, op) M(ushort, op) M(int, op) M(uint, op) M(long, op) M(ulong, op)
#define __KILN_SG_OVER_TYPES(M, op)                                                                \
  __KILN_SG_OVER_INTEGERS(M, op) M(float, op) __KILN_SG_DOUBLE_OP(M, op) __KILN_SG_HALF_OP(M, op)
#define __KILN_SG_EVERY_OPERATION(M)                                                               \
  __KILN_SG_OVER_TYPES(M, add)                                                                     \
  __KILN_SG_OVER_TYPES(M, mul)                                                                     \
  __KILN_SG_OVER_TYPES(M, min)                                                                     \
  __KILN_SG_OVER_TYPES(M, max)                                                                     \
  __KILN_SG_OVER_INTEGERS(M, and)                                                                  \
  __KILN_SG_OVER_INTEGERS(M, or)                                                                   \
  __KILN_SG_OVER_INTEGERS(M, xor)                                                                  \
  M(int, logical_and) M(int, logical_or) M(int, logical_xor)

#if defined(cl_khr_subgroup_non_uniform_arithmetic)
#define __KILN_SG_NON_UNIFORM(T, op) __KILN_SG_SCANS(sub_group_non_uniform, T, op)
__KILN_SG_EVERY_OPERATION(__KILN_SG_NON_UNIFORM)
#endif

#if defined(cl_khr_subgroup_clustered_reduce)
#define __KILN_SG_CLUSTERED(T, op) T __kiln_ovld_conv sub_group_clustered_reduce_##op(T, uint);
__KILN_SG_EVERY_OPERATION(__KILN_SG_CLUSTERED)
#endif

#if defined(cl_khr_subgroup_shuffle)
#define __KILN_SG_SHUFFLE(T)                                                                       \
  T __kiln_ovld_conv sub_group_shuffle(T, uint);                                                   \
  T __kiln_ovld_conv sub_group_shuffle_xor(T, uint);
__KILN_SG_TYPES(__KILN_SG_SHUFFLE)
#endif

#if defined(cl_khr_subgroup_shuffle_relative)
#define __KILN_SG_SHUFFLE_RELATIVE(T)                                                              \
  T __kiln_ovld_conv sub_group_shuffle_up(T, uint);                                                \
  T __kiln_ovld_conv sub_group_shuffle_down(T, uint);
__KILN_SG_TYPES(__KILN_SG_SHUFFLE_RELATIVE)
#endif

#if defined(cl_khr_subgroup_rotate)
#define __KILN_SG_ROTATE(T)                                                                        \
  T __kiln_ovld_conv sub_group_rotate(T, int);                                                     \
  T __kiln_ovld_conv sub_group_clustered_rotate(T, int, uint);
__KILN_SG_TYPES(__KILN_SG_ROTATE)
#endif

#endif // OpenCL C 1.x with sub-groups

#if defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif

#endif // KILN_EXTENSION_BUILTINS_H
