// Address space qualifier functions (OpenCL C 3.0 section 6.15.9). Clang turns to_global(p),
// to_local(p) and to_private(p), whatever p's type, into calls of __to_global, __to_local and
// __to_private on a generic void pointer. Each returns NULL when p does not point into that
// address space; the code generator tells the spaces apart (kiln_primitives.h).
#include "kiln_internal.h"
#include "kiln_primitives.h"

__global void *__to_global(__generic void *ptr) {
  if (__kiln_is_local_pointer(ptr) || __kiln_is_private_pointer(ptr))
    return NULL;
  return (__global void *)ptr;
}

__local void *__to_local(__generic void *ptr) {
  return __kiln_is_local_pointer(ptr) ? (__local void *)ptr : NULL;
}

__private void *__to_private(__generic void *ptr) {
  return __kiln_is_private_pointer(ptr) ? (__private void *)ptr : NULL;
}

// The fence flag of the space ptr points into. Private memory is seen by its own work-item
// only and needs no fence; it gets the global flag, which every fence function accepts.
OVL cl_mem_fence_flags get_fence(const __generic void *ptr) {
  return __kiln_is_local_pointer(ptr) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

OVL cl_mem_fence_flags get_fence(__generic void *ptr) {
  return get_fence((const __generic void *)ptr);
}
