// Integer builtins and conversions with saturation and every rounding mode.

kernel void integers(global int *out, global const uint *in, global long *lout, global uchar *cout) {
  size_t i = get_global_id(0);
  uint x = in[i];
  out[i] = clz(x) + popcount(x) + rotate(x, 3u) + mul_hi(x, x) + mad24(x, x, x) + mul24(x, x) +
           hadd(x, 7u) + rhadd(x, 9u) + abs((int)x) + abs_diff(x, 3u) + add_sat((int)x, 5) + sub_sat(x, 2u) +
           max(x, 4u) + min(x, 5u) + clamp(x, 1u, 9u) + upsample((ushort)x, (ushort)x) + (int)(x / (x | 1)) + (int)(x % 7);
  lout[i] = mul_hi((long)x, (long)x) + upsample(x, x) + popcount((long)x);
  cout[i] = convert_uchar_sat(out[i]) + convert_uchar_sat_rte((float)x) + convert_uchar_rtz(1.5f);
  int4 v = convert_int4_sat_rtp((float4)(x, 1.5f, -2.5f, 1e20f));
  out[i] += v.x + v.y + v.z + v.w + as_int((float)x) + convert_int_rtn(-1.5) + convert_int_rtz(2.7f);
}
