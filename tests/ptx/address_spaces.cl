// Structs by value, __local arguments and variables, generic pointers and the address space
// queries, the work-item functions in three dimensions, vector loads and half stores.

typedef struct { float a; int b; double c; float4 v; } Pair;

float helper(generic float *p) { return *p * 2.0f; }

kernel void structs(global Pair *out, Pair in, local float *scratch, int n) {
  size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0) + get_global_id(2);
  scratch[get_local_id(0)] = in.a;
  barrier(CLK_LOCAL_MEM_FENCE);
  float local lv[64];
  lv[get_local_id(0) & 63] = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  private float p = in.a;
  generic float *gp = (i & 1) ? (generic float *)&lv[0] : (generic float *)&p;
  Pair r = in;
  r.a = helper(gp) + get_work_dim() + get_num_groups(1) + get_group_id(2) + get_global_offset(0) +
        get_enqueued_local_size(0) + get_global_linear_id() + get_local_linear_id();
  r.b = n + (to_global(gp) != 0) + (to_local(gp) != 0) + (to_private(gp) != 0);
  out[i] = r;
  vstore4(vload4(0, (global float *)out), 1, (global float *)out);
  vstore_half(in.a, 0, (global half *)out);
  out[0].a += vload_half(1, (global half *)out);
}
