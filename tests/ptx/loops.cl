// Loops on the GPU: an escape-time loop, whose exit depends on what it computes, stays one block
// with one test and one branch back (unrolled, each copy kept its own test and exit), as NVIDIA's
// compiler leaves it; a grid-stride loop, whose exit follows from its index alone, is unrolled by
// four, its loads one after another behind the copies' tests.
// PTX optimized contains: \$L__BB0_[0-9]+:[^$]*fma\.rn\.f32[^$]*setp\.le\.f32[^$]*@%p[0-9]+ bra[^$]+\$L__BB0_[0-9]+[^:]
// PTX optimized contains: ld\.global\.b32[^$]+\$[^$]+ld\.global\.b32[^$]+\$[^$]+ld\.global\.b32[^$]+\$[^$]+ld\.global\.b32
kernel void escapeTime(global int *counts, float cr, float ci, int limit) {
  float zr = 0.0f, zi = 0.0f;
  int count = 0;
  while (count < limit && zr * zr + zi * zi <= 4.0f) {
    float next = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = next;
    ++count;
  }
  counts[get_global_id(0)] = count;
}

kernel void gridStride(global const float *data, uint length, global float *sums) {
  float sum = 0.0f;
  for (uint i = get_global_id(0); i < length; i += get_global_size(0))
    sum += data[i];
  sums[get_global_id(0)] = sum;
}
