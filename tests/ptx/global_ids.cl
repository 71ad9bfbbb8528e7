// Global ids on the GPU: LaunchParams::firstItem (at byte 152 + 8 × dimension) + blockIdx ×
// enqueued local size + local id. The enqueued size (at byte 48 + 8 × dimension, at most 1024) is
// read as 32 bits, so that the product is one of 32-bit values widened (mul.wide.u32, or
// ptxas's from a mad.lo.s64 of zero-extended values), not a multiplication of 64-bit values.
// PTX optimized contains: ld\.param\.b32[^[]+\[[%_a-z0-9]+\+48\][^$]+\+152\][^$]+ld\.global\.b32
// PTX optimized contains: ld\.param\.b32[^[]+\[[%_a-z0-9]+\+48\][^$]+\+152\][^$]+ld\.param\.b32[^[]+\[[%_a-z0-9]+\+56\][^$]+\+160\]
kernel void scale(global float *data, float factor) {
  size_t i = get_global_id(0);
  data[i] *= factor;
}

kernel void transpose(global const float *in, global float *out, int width, int height) {
  int x = get_global_id(0), y = get_global_id(1);
  out[x * height + y] = in[y * width + x];
}
