// A kernel that samples and writes many images: each read keeps its texture path inline, but
// reads and writes call one out-of-line copy of the library's software paths (inlined per access,
// a kernel of 127 sampled reads made 9 MB of PTX that ptxas took minutes and 7 GB to assemble).
// A path called only a few times, as the one read_imageui here, is still inlined.
// PTX contains: __kiln_outline_sample_float4\(
// PTX contains: __kiln_outline_store_float4\(
// PTX contains: call\.uni \(retval0\), __kiln_outline_sample_float4,
// PTX contains: call\.uni __kiln_outline_store_float4,
kernel void manyImages(global float4 *out, sampler_t sampler, read_only image2d_t in0,
                       read_only image2d_t in1, read_only image2d_t in2, read_only image2d_t in3,
                       read_only image2d_t in4, read_only image2d_t in5, read_only image2d_t in6,
                       read_only image2d_t in7, read_only image2d_t in8, read_only image2d_t in9,
                       read_only image2d_t in10, read_only image2d_t in11, read_only image2d_t in12,
                       read_only image2d_t in13, read_only image2d_t in14, read_only image2d_t in15,
                       read_only image2d_t in16, read_only image2d_t in17, read_only image2d_t in18,
                       read_only image2d_t in19, read_only image2d_t in20, read_only image2d_t in21,
                       read_only image2d_t in22, read_only image2d_t in23, read_only image2d_t in24,
                       read_only image2d_t in25, read_only image2d_t in26, read_only image2d_t in27,
                       read_only image2d_t in28, read_only image2d_t in29, read_only image2d_t in30,
                       read_only image2d_t in31, read_only image3d_t volume,
                       write_only image2d_t target) {
  int x = get_global_id(0);
  float4 sum = (float4)(0.0f);
  sum += read_imagef(in0, sampler, (float2)(x * 0.5f, 0.5f));
  sum += read_imagef(in1, sampler, (float2)(x * 0.5f, 1.5f));
  sum += read_imagef(in2, sampler, (float2)(x * 0.5f, 2.5f));
  sum += read_imagef(in3, sampler, (float2)(x * 0.5f, 3.5f));
  sum += read_imagef(in4, sampler, (float2)(x * 0.5f, 4.5f));
  sum += read_imagef(in5, sampler, (float2)(x * 0.5f, 5.5f));
  sum += read_imagef(in6, sampler, (float2)(x * 0.5f, 6.5f));
  sum += read_imagef(in7, sampler, (float2)(x * 0.5f, 7.5f));
  sum += read_imagef(in8, sampler, (float2)(x * 0.5f, 8.5f));
  sum += read_imagef(in9, sampler, (float2)(x * 0.5f, 9.5f));
  sum += read_imagef(in10, sampler, (float2)(x * 0.5f, 10.5f));
  sum += read_imagef(in11, sampler, (float2)(x * 0.5f, 11.5f));
  sum += read_imagef(in12, sampler, (float2)(x * 0.5f, 12.5f));
  sum += read_imagef(in13, sampler, (float2)(x * 0.5f, 13.5f));
  sum += read_imagef(in14, sampler, (float2)(x * 0.5f, 14.5f));
  sum += read_imagef(in15, sampler, (float2)(x * 0.5f, 15.5f));
  sum += read_imagef(in16, sampler, (float2)(x * 0.5f, 16.5f));
  sum += read_imagef(in17, sampler, (float2)(x * 0.5f, 17.5f));
  sum += read_imagef(in18, sampler, (float2)(x * 0.5f, 18.5f));
  sum += read_imagef(in19, sampler, (float2)(x * 0.5f, 19.5f));
  sum += read_imagef(in20, sampler, (float2)(x * 0.5f, 20.5f));
  sum += read_imagef(in21, sampler, (float2)(x * 0.5f, 21.5f));
  sum += read_imagef(in22, sampler, (float2)(x * 0.5f, 22.5f));
  sum += read_imagef(in23, sampler, (float2)(x * 0.5f, 23.5f));
  sum += read_imagef(in24, sampler, (float2)(x * 0.5f, 24.5f));
  sum += read_imagef(in25, sampler, (float2)(x * 0.5f, 25.5f));
  sum += read_imagef(in26, sampler, (float2)(x * 0.5f, 26.5f));
  sum += read_imagef(in27, sampler, (float2)(x * 0.5f, 27.5f));
  sum += read_imagef(in28, sampler, (float2)(x * 0.5f, 28.5f));
  sum += read_imagef(in29, sampler, (float2)(x * 0.5f, 29.5f));
  sum += read_imagef(in30, sampler, (float2)(x * 0.5f, 30.5f));
  sum += read_imagef(in31, sampler, (float2)(x * 0.5f, 31.5f));
  sum += convert_float4(read_imageui(volume, sampler, (int4)(x, 1, 2, 0)));
  write_imagef(target, (int2)(x, 0), sum + 0.0f);
  write_imagef(target, (int2)(x, 1), sum + 1.0f);
  write_imagef(target, (int2)(x, 2), sum + 2.0f);
  write_imagef(target, (int2)(x, 3), sum + 3.0f);
  write_imagef(target, (int2)(x, 4), sum + 4.0f);
  write_imagef(target, (int2)(x, 5), sum + 5.0f);
  out[x] = sum;
}
