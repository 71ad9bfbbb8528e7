// With -cl-denorms-are-zero, float atomic adds are the GPU's own atom.add.f32 (which flushes
// denormals), in global and shared memory.
// PTX options: -cl-denorms-are-zero
// PTX contains: atom(\.[a-z_]+)*\.global(\.[a-z_]+)*\.add\.f32
// PTX contains: atom(\.[a-z_]+)*\.shared(\.[a-z_]+)*\.add\.f32

kernel void float_adds(global float *f, local float *lf) {
  if (get_local_id(0) == 0)
    *lf = 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_fetch_add((volatile global atomic_float *)f, 1.0f);
  atomic_fetch_add((volatile local atomic_float *)lf, 1.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    f[1] = *lf;
}
