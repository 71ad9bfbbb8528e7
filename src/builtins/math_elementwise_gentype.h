// Template of math_common.cl: the math functions that are LLVM intrinsics, for float and double
// of every width. The x86 backend calls the C library for them (per element), whose float and
// double versions meet the specification's accuracy (acos 4 ulp, asin 4, atan 5, atan2 6,
// cos 4, cosh 4, sin 4, sinh 4, tan 5, tanh 5, exp 3, exp2 3, exp10 3, log 3, log2 3,
// log10 3, pow 16; glibc stays within 2.1 ulp) and edge cases (C99 Annex F).
OVL T acos(T x) {
  return __builtin_elementwise_acos(x);
}
OVL T asin(T x) {
  return __builtin_elementwise_asin(x);
}
OVL T atan(T x) {
  return __builtin_elementwise_atan(x);
}
OVL T atan2(T y, T x) {
  return __builtin_elementwise_atan2(y, x);
}
OVL T cos(T x) {
  return __builtin_elementwise_cos(x);
}
OVL T cosh(T x) {
  return __builtin_elementwise_cosh(x);
}
OVL T sin(T x) {
  return __builtin_elementwise_sin(x);
}
OVL T sinh(T x) {
  return __builtin_elementwise_sinh(x);
}
OVL T tan(T x) {
  return __builtin_elementwise_tan(x);
}
OVL T tanh(T x) {
  return __builtin_elementwise_tanh(x);
}
OVL T exp(T x) {
  return __builtin_elementwise_exp(x);
}
OVL T exp2(T x) {
  return __builtin_elementwise_exp2(x);
}
OVL T exp10(T x) {
  return __builtin_elementwise_exp10(x);
}
OVL T log(T x) {
  return __builtin_elementwise_log(x);
}
OVL T log2(T x) {
  return __builtin_elementwise_log2(x);
}
OVL T log10(T x) {
  return __builtin_elementwise_log10(x);
}
OVL T pow(T x, T y) {
  return __builtin_elementwise_pow(x, y);
}
