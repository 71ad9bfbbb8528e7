// Kernels compiled to SPIR-V at build time by Clang's own SPIR-V back end
// (clang-22 --target=spirv64), which clCreateProgramWithIL then reads.

kernel void saxpy(float a, global const float *x, global float *y, int n) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// Scalar zero constants: Clang emits OpConstantNull for them, which the translator cannot read
// as it is.
kernel void count_zeros(global const int *values, global int *count, local int *scratch) {
  int lid = get_local_id(0);
  scratch[lid] = values[get_global_id(0)] == 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    int sum = 0;
    for (int i = 0; i < (int)get_local_size(0); ++i)
      sum += scratch[i];
    atomic_fetch_add_explicit((volatile global atomic_int *)count, sum, memory_order_relaxed,
                              memory_scope_device);
  }
}

__attribute__((reqd_work_group_size(16, 1, 1))) kernel void fixed_size(global uint *out) {
  out[get_global_id(0)] = get_local_id(0) * 100 + get_group_id(0);
}
