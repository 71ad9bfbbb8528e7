// Template of relational.cl for float and double of every width (see kiln_gentype_float.h).
// C comparisons already give what the specification asks: 1/0 for scalars, -1/0 (all bits
// set or none) in the RT vector for vectors, false for an unordered pair except !=.

OVL RT isequal(T x, T y) {
  return x == y;
}
OVL RT isnotequal(T x, T y) {
  return x != y;
}
OVL RT isgreater(T x, T y) {
  return x > y;
}
OVL RT isgreaterequal(T x, T y) {
  return x >= y;
}
OVL RT isless(T x, T y) {
  return x < y;
}
OVL RT islessequal(T x, T y) {
  return x <= y;
}
OVL RT islessgreater(T x, T y) {
  return (x < y) || (x > y);
}
OVL RT isfinite(T x) {
  return __builtin_elementwise_abs(x) < (T)INFINITY;
}
OVL RT isinf(T x) {
  return __builtin_elementwise_abs(x) == (T)INFINITY;
}
OVL RT isnan(T x) {
  return x != x;
}
OVL RT isnormal(T x) {
  T a = __builtin_elementwise_abs(x);
  return (a >= (T)(S)KILN_MIN_NORMAL) && (a < (T)INFINITY);
}
OVL RT isordered(T x, T y) {
  return (x == x) && (y == y);
}
OVL RT isunordered(T x, T y) {
  return (x != x) || (y != y);
}
OVL RT signbit(T x) {
  return as_IT(x) < (IT)0;
}

// The bits of c choose between the bits of a (0) and b (1).
OVL T bitselect(T a, T b, T c) {
  return as_T((IT)((as_IT(a) & ~as_IT(c)) | (as_IT(b) & as_IT(c))));
}

// Scalars select on c != 0, vectors on the most significant bit of each component of c.
#if N == 1
OVL T select(T a, T b, SI c) {
  return c ? b : a;
}
OVL T select(T a, T b, SU c) {
  return c ? b : a;
}
#else
OVL T select(T a, T b, IT c) {
  return c < (IT)0 ? b : a;
}
OVL T select(T a, T b, UT c) {
  return as_IT(c) < (IT)0 ? b : a;
}
#endif
