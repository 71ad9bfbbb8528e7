// PTX's register classes in asm operands (CLBlast's float shuffle names `f`): the front end reads
// them as `r`, and the code generator gives each operand the class of its width, so a 64-bit
// operand gets a 64-bit register (%rd) and a 16-bit one a 16-bit register (%rs).
// PTX contains: shfl\.sync\.idx\.b32 %r[0-9]+, %r[0-9]+, %r[0-9]+, 0x1f, 0xffffffff;
// PTX contains: add\.rn\.f64 %rd[0-9]+, %rd[0-9]+, %rd[0-9]+;
// PTX contains: mov\.b64 %rd[0-9]+, \{hi, lo\};
// PTX contains: add\.u16 %rs[0-9]+, %rs[0-9]+, %rs[0-9]+;
// PTX contains: add\.u64 %rd[0-9]+, %rd[0-9]+, 1;

float shuffle(float value, int source) {
  float result;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(result) : "f"(value), "r"(source));
  return result;
}

double twice(double x) {
  double r;
  __asm__("add.rn.f64 %0, %1, %1;" : "=d"(r) : "d"(x));
  return r;
}

ulong swap_halves(ulong x) {
  ulong r;
  asm("{ .reg .b32 lo, hi; mov.b64 {lo, hi}, %1; mov.b64 %0, {hi, lo}; }" : "=l"(r) : "l"(x));
  return r;
}

ushort add16(ushort a, ushort b) {
  ushort r;
  asm("add.u16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
  return r;
}

ulong plus_one(ulong x) {
  ulong r;
  asm("add.u64 %0, %1, 1;" : "=r"(r) : "r"(x));
  return r;
}

kernel void classes(global float *f, global double *d, global ulong *l, global ushort *h,
                    global ulong *r) {
  size_t i = get_global_id(0);
  f[i] = shuffle(f[i], 3);
  d[i] = twice(d[i]);
  l[i] = swap_halves(l[i]);
  h[i] = add16(h[i], (ushort)i);
  r[i] = plus_one(r[i]);
}
