// Linear filtering with CL_ADDRESS_CLAMP, whose border the texture units' own filter does not
// blend as the specification says, fetches its four texels through the image's texture, one
// after the other (no label or branch, whose names hold a '$', between them), before weighing
// them.
// PTX optimized contains: tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32
const sampler_t bilinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;

kernel void resize(read_only image2d_t image, global float4 *out, int width) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * width + x] = read_imagef(image, bilinear, (float2)((x + 0.5f) / width, 0.25f * y));
}
