// The program kiln-spirv-build builds from this source and from SPIR-V that Clang's SPIR-V back
// end makes of it at build time (bench/CMakeLists.txt).
float4 shade(float4 c, float k) { return c * k + (float4)(0.1f); }

kernel void blur(global const float4 *in, global float4 *out, int width, int height, float k) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  float4 sum = (float4)(0.0f);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += in[clamp(y + dy, 0, height - 1) * width + clamp(x + dx, 0, width - 1)];
  sum /= 9.0f;
  float4 r = shade(sum, k);
  r.x = sqrt(fabs(r.x));
  r.y = exp(-r.y);
  r.z = sin(r.z) * cos(r.w);
  r.w = pow(fabs(r.w), 1.5f);
  out[y * width + x] = r;
}

kernel void sgemm(global const float *a, global const float *b, global float *c, int n) {
  int row = get_global_id(1), column = get_global_id(0);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i)
    sum += a[row * n + i] * b[i * n + column];
  c[row * n + column] = sum;
}
