// Every math, geometric and common builtin, float and double: libdevice supplies what PTX
// has no instruction for. A float sqrt, which OpenCL allows 3 ulp, is PTX's fast form; a double
// sqrt stays correctly rounded.
// PTX contains: sqrt\.approx\.f32
// PTX contains: sqrt\.rn\.f64

constant float table[4] = {1, 2, 3, 4};

kernel void math(global float *out, global const float *in, global double *dout) {
  size_t i = get_global_id(0);
  float x = in[i];
  float4 v = (float4)(x, x + 1, x + 2, x + 3);
  out[i] = sin(x) + cos(x) + tan(x) + asin(x) + acos(x) + atan(x) + atan2(x, 2.0f) + sinh(x) +
           cosh(x) + tanh(x) + asinh(x) + acosh(x + 2) + atanh(x * 0.5f) + exp(x) + exp2(x) +
           exp10(x) + expm1(x) + log(x + 1) + log2(x + 1) + log10(x + 1) + log1p(x) + pow(x, 2.5f) +
           pown(x, 3) + powr(x + 1, 0.5f) + rootn(x + 1, 3) + sqrt(x) + rsqrt(x + 1) + cbrt(x) +
           hypot(x, 3.0f) + erf(x) + erfc(x) + tgamma(x + 1) + lgamma(x + 1) + fmod(x, 0.3f) +
           remainder(x, 0.3f) + fma(x, x, x) + mad(x, x, x) + floor(x) + ceil(x) + trunc(x) +
           round(x) + rint(x) + fmin(x, 1.0f) + fmax(x, 1.0f) + fabs(x) + copysign(x, -1.0f) +
           ldexp(x, 3) + logb(x) + nextafter(x, 2.0f) + native_sin(x) + half_exp(x) + sinpi(x) +
           cospi(x) + tanpi(x) + asinpi(x) + acospi(x) + atanpi(x) + fdim(x, 1.0f) + dot(v, v) +
           length(v) + distance(v, v + 1) + normalize(v).x + cross(v, v).y + smoothstep(0.0f, 1.0f, x) +
           sign(x) + degrees(x) + radians(x) + mix(x, 1.0f, 0.5f) + step(0.5f, x) + clamp(x, 0.0f, 1.0f) +
           sin(v).z + pow(v, v).w + native_divide(x, 3.0f) + half_sqrt(x);
  int e; float m = frexp(x, &e); float ip; float fr = modf(x, &ip); int s; float lg = lgamma_r(x, &s);
  float sn, cs; sn = sincos(x, &cs);
  out[i] += m + e + fr + ip + lg + s + sn + cs + table[i & 3];
  double d = (double)x;
  dout[i] = sin(d) + exp(d) + pow(d, 1.5) + sqrt(d) + log(d + 1) + tgamma(d + 1) + fmod(d, 0.3) + cbrt(d);
}
