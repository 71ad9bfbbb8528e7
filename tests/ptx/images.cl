// Images on the GPU: sampled reads of every image shape through the texture hardware (with
// the software path beside them), reads without a sampler, writes, queries, and samplers both
// as arguments and at program scope.
// PTX contains: tex\.1d\.v4\.f32\.f32
// PTX contains: tex\.2d\.v4\.f32\.f32
// PTX contains: tex\.3d\.v4\.u32\.f32
// PTX contains: tex\.a1d\.v4\.s32\.f32
// PTX contains: tex\.a2d\.v4\.f32\.f32
constant sampler_t repeatLinear =
    CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

kernel void sampled(read_only image1d_t line, read_only image2d_t plane,
                    read_only image3d_t volume, read_only image1d_array_t lines,
                    read_only image2d_array_t planes, sampler_t sampler, global float4 *out,
                    global uint4 *bits, global int4 *signedBits) {
  int x = get_global_id(0);
  float position = x * 0.25f;
  out[x] = read_imagef(line, sampler, position) +
           read_imagef(plane, repeatLinear, (float2)(position, 0.5f)) +
           read_imagef(planes, sampler, (float4)(position, 1.5f, 2.0f, 0.0f));
  bits[x] = read_imageui(volume, sampler, (int4)(x, 1, 2, 0));
  signedBits[x] = read_imagei(lines, sampler, (float2)(position, 3.0f));
}

kernel void copyAndQuery(read_only image2d_t source, write_only image2d_t target,
                         read_write image3d_t scratch, global int4 *sizes) {
  int2 at = (int2)(get_global_id(0), get_global_id(1));
  float4 color = read_imagef(source, at);
  write_imagef(target, at, color);
  write_imagef(scratch, (int4)(at, 0, 0), color + read_imagef(scratch, (int4)(at, 1, 0)));
  if (at.x == 0 && at.y == 0)
    *sizes = (int4)(get_image_width(source), get_image_height(source),
                    get_image_channel_order(target), get_image_depth(scratch));
}
