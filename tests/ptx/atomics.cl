// Atomics of every kind on global and local memory, fences and barriers.

global int counter = 0;

kernel void atomics(global int *g, local int *l, global long *gl, global float *f, global uint *u) {
  size_t i = get_local_id(0);
  if (i == 0) l[0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&l[0], 1);
  atom_add(gl, 1L);
  atomic_inc(&g[0]); atomic_dec(&g[1]); atomic_min(&g[2], (int)i); atomic_max(&g[3], (int)i);
  atomic_and(&g[4], 3); atomic_or(&g[5], 4); atomic_xor(&g[6], 5); atomic_xchg(&g[7], 1);
  atomic_cmpxchg(&g[8], 0, 1); atomic_xchg(f, 1.0f);
  atomic_fetch_add_explicit((volatile global atomic_int *)&g[9], 1, memory_order_relaxed, memory_scope_device);
  atomic_fetch_add_explicit((volatile global atomic_int *)&g[10], 1, memory_order_acq_rel, memory_scope_work_group);
  atomic_store_explicit((volatile global atomic_uint *)u, 1u, memory_order_seq_cst);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_work_group);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  atomic_inc(&counter);
  if (i == 0) g[11] = l[0];
}
