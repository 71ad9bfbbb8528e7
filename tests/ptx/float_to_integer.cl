// Float-to-integer conversions on the GPU: a conversion to a 32- or 64-bit integer is one cvt,
// which saturates as the library's conversions must (and, from a float to 32 bits, converts NaN
// to 0; from a double or to 64 bits a select does), and takes in the rounding before it; no
// compares and selects around a float's conversion to 32 bits (four cvt in a row for a vector).
// PTX optimized contains: cvt\.rni\.u32\.f32[^;]+;[^a-z]+cvt\.rni\.u32\.f32[^;]+;[^a-z]+cvt\.rni\.u32\.f32[^;]+;[^a-z]+cvt\.rni\.u32\.f32
// PTX optimized contains: cvt\.rmi\.s32\.f32
// PTX optimized contains: cvt\.rpi\.s64\.f64
// PTX optimized contains: cvt\.rzi\.u64\.f32
// PTX optimized contains: setp\.nan\.f64
kernel void roundedColors(global const float4 *colors, global uint4 *bytes) {
  size_t i = get_global_id(0);
  bytes[i] = convert_uint4_rte(colors[i]);
}

kernel void directedRoundings(global const float *f, global const double *d, global int *down,
                              global long *up, global ulong *truncated) {
  size_t i = get_global_id(0);
  down[i] = convert_int_sat_rtn(f[i]);
  up[i] = convert_long_rtp(d[i]);
  truncated[i] = convert_ulong_sat(f[i]);
}
