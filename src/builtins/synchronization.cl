// Synchronization and memory fence functions (OpenCL C 3.0 sections 6.15.8 and 6.15.11).
// A barrier is the code generator's __kiln_work_group_barrier(), which also orders the memory
// accesses of the group's work-items, whatever the flags and scope say.
#include "kiln_internal.h"
#include "kiln_primitives.h"

OVL __attribute__((convergent)) void barrier(cl_mem_fence_flags flags) {
  __kiln_work_group_barrier();
}

OVL __attribute__((convergent)) void work_group_barrier(cl_mem_fence_flags flags) {
  __kiln_work_group_barrier();
}

OVL __attribute__((convergent)) void work_group_barrier(cl_mem_fence_flags flags,
                                                        memory_scope scope) {
  __kiln_work_group_barrier();
}

// Work-items may run on different threads, so the fences are real thread fences; on x86 the
// acquire and release ones only keep the compiler from moving accesses across them.
OVL void mem_fence(cl_mem_fence_flags flags) {
  __atomic_thread_fence(__ATOMIC_ACQ_REL);
}

OVL void read_mem_fence(cl_mem_fence_flags flags) {
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

OVL void write_mem_fence(cl_mem_fence_flags flags) {
  __atomic_thread_fence(__ATOMIC_RELEASE);
}

// The scope is ignored: a fence for all devices orders at least as much as a narrower one.
OVL void atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order, memory_scope scope) {
  switch (order) {
  case memory_order_relaxed:
    break; // a relaxed fence orders nothing
  case memory_order_acquire:
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    break;
  case memory_order_release:
    __atomic_thread_fence(__ATOMIC_RELEASE);
    break;
  case memory_order_acq_rel:
    __atomic_thread_fence(__ATOMIC_ACQ_REL);
    break;
  default:
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    break;
  }
}
