// Image reads in a loop on the GPU, for RGBA images: the loop is copied per channel order the
// library tests for (texture_loop_versioning.cpp versions a switch on the order, one case a
// copy), and in the copy for RGBA the order is known, so its reads take the texture's channels
// as they are, without the selects that swizzle the other orders: the fourth fetch in a row is
// followed by the sum's first add (no letter but those of the next instruction between them).
// PTX optimized contains: tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32[^$]+tex\.2d\.v4\.f32\.f32 [^;]+;[^a-z]+add\.rn\.f32
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
