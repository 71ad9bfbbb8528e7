// Work-group collectives: across the lanes of each warp first (shuffles), then one step through
// the kernel's shared-memory scratch between two block barriers.
// PTX contains: shfl\.sync\.(idx|up|down|bfly)\.b32
// One 8-byte slot per sub-group of the largest block: 32 warps, or 128 sub-groups of 8.
// PTX contains: \.shared \.align 8 \.b8 __kiln_entry_collectives_scratch\[256\]
// PTX contains: \.shared \.align 8 \.b8 __kiln_entry_eighth_scratch\[1024\]
// PTX contains: st\.shared\.(u|b|f)64
// PTX contains: bar\.sync

kernel void collectives(global int *in, global long *out, global double *d) {
  size_t g = get_global_id(0);
  int x = in[g];
  out[g] = work_group_reduce_add(x) + work_group_scan_inclusive_max((long)x) +
           work_group_broadcast(x, 3) + work_group_all(x > 0);
  d[g] = work_group_scan_exclusive_add(d[g]) + work_group_reduce_min(d[g]) +
         work_group_broadcast(d[g], 1, 2);
}

__attribute__((intel_reqd_sub_group_size(8)))
kernel void eighth(global uint *in, global uint *out) {
  size_t g = get_global_id(0);
  out[g] = work_group_scan_inclusive_add(in[g]) + work_group_any(in[g] == 4u);
}
