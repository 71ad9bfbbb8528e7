// Declarations of the builtins of extensions Kiln offers that Clang's builtin tables
// (-fdeclare-opencl-builtins) lack: cl_intel_subgroups and its char, short and long companions.
// Every compile includes it after opencl-c-base.h (clang_invocation.cpp); the builtin library
// defines the functions (src/builtins/subgroups.cl, image.cl).
#ifndef KILN_EXTENSION_BUILTINS_H
#define KILN_EXTENSION_BUILTINS_H

#define __kiln_ovld_conv __attribute__((overloadable, convergent))

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
#define __KILN_INTEL_TYPES(M)                                                                      \
  M(char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong) M(float)
__KILN_INTEL_TYPES(__KILN_INTEL_SHUFFLES_ALL_WIDTHS)
__KILN_INTEL_TYPES(__KILN_INTEL_GROUP_OPS)
#if defined(cl_khr_fp64)
__KILN_INTEL_SHUFFLES_ALL_WIDTHS(double)
__KILN_INTEL_GROUP_OPS(double)
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

#endif // KILN_EXTENSION_BUILTINS_H
