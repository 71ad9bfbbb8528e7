// With -cl-denorms-are-zero, float atomic adds are the GPU's own atom.add.f32 (which flushes
// denormals), in global and shared memory.
// PTX options: -cl-denorms-are-zero
// PTX contains: atom(\.[a-z_]+)*\.global(\.[a-z_]+)*\.add\.f32
// PTX contains: atom(\.[a-z_]+)*\.shared(\.[a-z_]+)*\.add\.f32
// PTX contains: atom(\.[a-z_]+)*\.global(\.[a-z_]+)*\.add\.f64
// PTX contains: atom(\.[a-z_]+)*\.global(\.[a-z_]+)*\.add\.f64
// PTX contains: atom(\.[a-z_]+)*\.shared(\.[a-z_]+)*\.add\.f64

kernel void float_atomics(global float *f, global double *d, local float *lf, local double *ld) {
  size_t i = get_local_id(0);
  if (i == 0) {
    *lf = 0.0f;
    *ld = 0.0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_fetch_add((volatile global atomic_float *)f, 1.0f);
  atomic_fetch_add_explicit((volatile global atomic_double *)d, 2.0, memory_order_relaxed,
                            memory_scope_device);
  atomic_fetch_add((volatile local atomic_float *)lf, 1.0f);
  atomic_fetch_add_explicit((volatile local atomic_double *)ld, 1.0, memory_order_relaxed,
                            memory_scope_work_group);
  atomic_fetch_min((volatile global atomic_float *)&f[1], (float)i);
  atomic_fetch_max_explicit((volatile global atomic_double *)&d[1], (double)i,
                            memory_order_relaxed);
  atomic_fetch_sub((volatile local atomic_float *)lf, 0.5f);
  float old = atomic_exchange((volatile global atomic_float *)&f[2], (float)i);
  atomic_store((volatile global atomic_float *)&f[3], old);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0) {
    f[4] = atomic_load((volatile local atomic_float *)lf);
    d[4] = atomic_load((volatile local atomic_double *)ld);
  }
}
