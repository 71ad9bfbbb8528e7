// Template of common.cl for float and double of every width (see kiln_gentype_float.h).

OVL T clamp(T x, T lo, T hi) {
  return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);
}
OVL T max(T x, T y) {
  return __builtin_elementwise_max(x, y);
}
OVL T min(T x, T y) {
  return __builtin_elementwise_min(x, y);
}
// One multiplication by the rounded constant: within 2 ulp as required.
OVL T degrees(T radians) {
  return radians * (T)(S)(180.0 / M_PI);
}
OVL T radians(T degrees) {
  return degrees * (T)(S)(M_PI / 180.0);
}
OVL T mix(T x, T y, T a) {
  return x + (y - x) * a;
}
OVL T step(T edge, T x) {
  return x < edge ? (T)0 : (T)1;
}
OVL T smoothstep(T edge0, T edge1, T x) {
  T t = clamp((x - edge0) / (edge1 - edge0), (T)0, (T)1);
  return t * t * ((T)3 - (T)2 * t);
}
// 1 or -1 by the sign, zeros unchanged, 0 for a NaN.
OVL T sign(T x) {
  T r = x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x;
  return x != x ? (T)0 : r;
}

#if N != 1
OVL T clamp(T x, S lo, S hi) {
  return __builtin_elementwise_min(__builtin_elementwise_max(x, (T)lo), (T)hi);
}
OVL T max(T x, S y) {
  return __builtin_elementwise_max(x, (T)y);
}
OVL T min(T x, S y) {
  return __builtin_elementwise_min(x, (T)y);
}
OVL T mix(T x, T y, S a) {
  return mix(x, y, (T)a);
}
OVL T step(S edge, T x) {
  return step((T)edge, x);
}
OVL T smoothstep(S edge0, S edge1, T x) {
  return smoothstep((T)edge0, (T)edge1, x);
}
#endif
