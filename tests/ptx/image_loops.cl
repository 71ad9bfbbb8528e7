// Image reads in loops on the GPU: the loop is copied per choice the image's format makes (a
// texture or the software path, sRGB or not), so the copy that reads through textures is one
// block the unrolling turns into four fetches in a row (no label or branch, whose names hold a
// '$', between them). (Linear filtering, which also fetches four texels in a row: image_linear.cl.)
// The library tests for RGBA (and sRGBA), whose channels a read takes as they are; the loop's copy
// for RGBA (texture_loop_versioning.cpp versions a switch on the channel order, one case a
// copy, and folds the order's other tests in it) has no selects to swizzle the channels: its
// fourth fetch in a row is followed by the sum's first add.
// PTX optimized contains: tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32
// PTX optimized contains: tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32 [^;]+;[^a-z]+add\.rn\.f32
// PTX optimized contains: tex\.2d\.v4\.u32\.f32[^$]+tex\.2d\.v4\.u32\.f32[^$]+tex\.2d\.v4\.u32\.f32[^$]+tex\.2d\.v4\.u32\.f32
// PTX contains: call\.uni \(retval0\), __kiln_outline_nearest_float4
const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                          CLK_FILTER_NEAREST;

kernel void columnSums(read_only image2d_t image, global float *sums) {
  int x = get_global_id(0);
  float sum = 0.0f;
  for (int y = 0; y < get_image_height(image); ++y) {
    float4 color = read_imagef(image, nearest, (int2)(x, y));
    sum += color.x + color.y + color.z;
  }
  sums[x] = sum;
}

kernel void columnBits(read_only image2d_t image, global uint *bits) {
  int x = get_global_id(0);
  uint all = 0;
  for (int y = 0; y < get_image_height(image); ++y)
    all |= read_imageui(image, nearest, (int2)(x, y)).x;
  bits[x] = all;
}
