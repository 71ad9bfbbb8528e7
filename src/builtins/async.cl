// Async copies and prefetch (OpenCL C 3.0 section 6.15.10). Every work-item of the group calls
// an async copy with the same arguments; each copies its share of the elements (those at its
// local linear id plus multiples of the group size) right away, and wait_group_events, a
// work-group barrier, makes the whole copy visible to the group. The events carry nothing.
#include "kiln_internal.h"
#include "kiln_primitives.h"

// event_t is a target extension type that the CPU backend cannot pass to or return from a
// call: the functions that have one in their signature are always inlined, so that events
// never cross a call.
#define KILN_EVENT_FN OVL __attribute__((always_inline))

static size_t kiln_local_linear_id(void) {
  return (__kiln_local_id(2) * __kiln_local_size(1) + __kiln_local_id(1)) * __kiln_local_size(0) +
         __kiln_local_id(0);
}

static size_t kiln_local_count(void) {
  return __kiln_local_size(0) * __kiln_local_size(1) * __kiln_local_size(2);
}

#define KILN_ASYNC(T)                                                                              \
  KILN_EVENT_FN event_t async_work_group_copy(__local T *dst, const __global T *src, size_t num,   \
                                              event_t event) {                                     \
    for (size_t i = kiln_local_linear_id(), n = kiln_local_count(); i < num; i += n)               \
      dst[i] = src[i];                                                                             \
    return event;                                                                                  \
  }                                                                                                \
  KILN_EVENT_FN event_t async_work_group_copy(__global T *dst, const __local T *src, size_t num,   \
                                              event_t event) {                                     \
    for (size_t i = kiln_local_linear_id(), n = kiln_local_count(); i < num; i += n)               \
      dst[i] = src[i];                                                                             \
    return event;                                                                                  \
  }                                                                                                \
  KILN_EVENT_FN event_t async_work_group_strided_copy(                                             \
      __local T *dst, const __global T *src, size_t num, size_t src_stride, event_t event) {       \
    for (size_t i = kiln_local_linear_id(), n = kiln_local_count(); i < num; i += n)               \
      dst[i] = src[i * src_stride];                                                                \
    return event;                                                                                  \
  }                                                                                                \
  KILN_EVENT_FN event_t async_work_group_strided_copy(                                             \
      __global T *dst, const __local T *src, size_t num, size_t dst_stride, event_t event) {       \
    for (size_t i = kiln_local_linear_id(), n = kiln_local_count(); i < num; i += n)               \
      dst[i * dst_stride] = src[i];                                                                \
    return event;                                                                                  \
  }                                                                                                \
  /* A hint only: the CPU's own prefetchers serve. */                                              \
  OVL void prefetch(const __global T *p, size_t num) {}

#define KILN_ASYNC_ALL_WIDTHS(S, ...)                                                              \
  KILN_ASYNC(S)                                                                                    \
  KILN_ASYNC(S##2) KILN_ASYNC(S##3) KILN_ASYNC(S##4) KILN_ASYNC(S##8) KILN_ASYNC(S##16)
KILN_ALL_TYPES(KILN_ASYNC_ALL_WIDTHS)

// half elements are copied as their bits: dereferencing half pointers needs more than the
// library may assume of the program.
#define KILN_ASYNC_HALF(T, U)                                                                      \
  KILN_EVENT_FN event_t async_work_group_copy(__local T *dst, const __global T *src, size_t num,   \
                                              event_t event) {                                     \
    return async_work_group_copy((__local U *)dst, (const __global U *)src, num, event);           \
  }                                                                                                \
  KILN_EVENT_FN event_t async_work_group_copy(__global T *dst, const __local T *src, size_t num,   \
                                              event_t event) {                                     \
    return async_work_group_copy((__global U *)dst, (const __local U *)src, num, event);           \
  }                                                                                                \
  KILN_EVENT_FN event_t async_work_group_strided_copy(                                             \
      __local T *dst, const __global T *src, size_t num, size_t src_stride, event_t event) {       \
    return async_work_group_strided_copy((__local U *)dst, (const __global U *)src, num,           \
                                         src_stride, event);                                       \
  }                                                                                                \
  KILN_EVENT_FN event_t async_work_group_strided_copy(                                             \
      __global T *dst, const __local T *src, size_t num, size_t dst_stride, event_t event) {       \
    return async_work_group_strided_copy((__global U *)dst, (const __local U *)src, num,           \
                                         dst_stride, event);                                       \
  }                                                                                                \
  OVL void prefetch(const __global T *p, size_t num) {}
KILN_ASYNC_HALF(half, ushort)
KILN_ASYNC_HALF(half2, ushort2)
KILN_ASYNC_HALF(half3, ushort3)
KILN_ASYNC_HALF(half4, ushort4)
KILN_ASYNC_HALF(half8, ushort8)
KILN_ASYNC_HALF(half16, ushort16)

KILN_EVENT_FN __attribute__((convergent)) void wait_group_events(int num_events,
                                                                 __generic event_t *event_list) {
  __kiln_work_group_barrier();
}

// OpenCL C 1.x programs pass a private pointer; the header declares only the generic one.
KILN_EVENT_FN __attribute__((convergent)) void wait_group_events(int num_events,
                                                                 __private event_t *event_list) {
  __kiln_work_group_barrier();
}
