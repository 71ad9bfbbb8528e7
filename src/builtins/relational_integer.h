// Template of relational.cl for the integer types of every width (see kiln_gentype_int.h).

// any/all look at the most significant bit of each component; they exist for signed types.
#if KILN_SIGNED
#if N == 1
OVL int any(T x) {
  return x < 0;
}
OVL int all(T x) {
  return x < 0;
}
#else
OVL int any(T x) {
  return __builtin_reduce_or(x) < 0;
}
OVL int all(T x) {
  return __builtin_reduce_and(x) < 0;
}
#endif
#endif

OVL T bitselect(T a, T b, T c) {
  return (a & ~c) | (b & c);
}

#if N == 1
OVL T select(T a, T b, SS c) {
  return c ? b : a;
}
OVL T select(T a, T b, SU c) {
  return c ? b : a;
}
#else
OVL T select(T a, T b, ST c) {
  return c < (ST)0 ? b : a;
}
OVL T select(T a, T b, UT c) {
  return as_ST(c) < (ST)0 ? b : a;
}
#endif
