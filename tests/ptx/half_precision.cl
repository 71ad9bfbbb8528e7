// Half precision for the GPU: arithmetic in the native f16 instructions, the math builtins
// (through float), conversions with rounding modes, collectives and half images all compile and
// assemble.
// PTX contains: add\.rn\.f16
// PTX contains: cvt\.f32\.f16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void arithmetic(global half *x, global half4 *v, global int *io) {
  size_t i = get_global_id(0);
  half a = x[i];
  half r = a + a * (half)3 + sin(a) + exp(a) + log(a) + pow(a, a) + fma(a, a, a) + sqrt(a) +
           cbrt(a) + lgamma(a) + rsqrt(a) + fmod(a, (half)2) + ldexp(a, 3) + nextafter(a, r);
  r += convert_half_rtz(io[i]) + convert_half_rtp((float)i);
  io[i] = convert_int_sat_rte(a);
  r += work_group_reduce_add(a) + sub_group_reduce_max(a) + sub_group_shuffle(a, 1u) +
       intel_sub_group_shuffle(a, 2u);
  v[i] = normalize(v[i]) + (half4)length(v[i]) + clamp(v[i], (half)0, (half)1);
  x[i] = r;
}

kernel void images(read_only image2d_t in, write_only image2d_t out, sampler_t s) {
  int2 at = (int2)(get_global_id(0), get_global_id(1));
  write_imageh(out, at, read_imageh(in, at) * (half)2 + read_imageh(in, s, convert_float2(at)));
}
