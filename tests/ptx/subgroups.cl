// Sub-groups: warps and parts of warps. Shuffles and ballots are the .sync instructions over the
// lanes that run the call.
// PTX contains: shfl\.sync\.idx\.b32
// PTX contains: vote\.sync\.ballot\.b32
// PTX contains: activemask\.b32
// PTX contains: bar\.warp\.sync
// 32-bit integer reductions (uniform, non-uniform and clustered) are redux.sync on sm_80+.
// PTX contains: redux\.sync\.add\.s32
// PTX contains: redux\.sync\.and\.b32

kernel void warp(global int *in, global int *out, global float *f, global double *d,
                 local int *exchange) {
  size_t g = get_global_id(0);
  int x = in[g];
  out[g] = sub_group_reduce_add(x) + sub_group_scan_exclusive_max(x) + sub_group_broadcast(x, 3);
  f[g] = sub_group_reduce_min(f[g]) + sub_group_shuffle_xor(f[g], 1);
  d[g] = sub_group_scan_inclusive_add(d[g]) + sub_group_rotate(d[g], 2);
  if (x & 1) {
    out[g] += sub_group_non_uniform_reduce_and(x) + sub_group_elect() +
              sub_group_ballot_bit_count(sub_group_ballot(x > 3)) +
              sub_group_clustered_reduce_mul(x, 4) + sub_group_non_uniform_all_equal(x);
  }
  exchange[get_local_id(0)] = x;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  out[g] += exchange[get_local_id(0) ^ 1] + get_sub_group_local_id() + get_sub_group_id();
}

__attribute__((intel_reqd_sub_group_size(8)))
kernel void eighth(global uint *in, global uint *out, global ushort *shorts, global ulong *longs) {
  size_t g = get_global_id(0);
  uint x = in[g];
  out[g] = intel_sub_group_shuffle_down(x, x + 1, 3) + intel_sub_group_shuffle_up(x, x + 1, 2) +
           get_max_sub_group_size() + sub_group_shuffle_up(x, 1);
  uint4 block = intel_sub_group_block_read4(in);
  intel_sub_group_block_write4(out + 1024, block);
  intel_sub_group_block_write_us(shorts, intel_sub_group_block_read_us(shorts + 64));
  longs[g] = sub_group_reduce_max(longs[g]) + sub_group_non_uniform_scan_inclusive_add(longs[g]);
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void sixteenth(global char *in, global short *out) {
  size_t g = get_global_id(0);
  out[g] = sub_group_reduce_add(in[g]) + sub_group_non_uniform_broadcast((short)in[g], 2) +
           sub_group_scan_inclusive_min((short)in[g]);
}
