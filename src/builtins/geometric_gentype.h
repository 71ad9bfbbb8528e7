// Template of geometric.cl for float and double of widths 1 to 4 (see kiln_gentype_float.h).
#if N <= 4

#if N == 1
#define KILN_DOT(x, y) ((x) * (y))
#define KILN_SUM(v) (v)
#define KILN_MAX_COMPONENT(v) (v)
#define KILN_ANY(c) (c)
#elif N == 2
#define KILN_DOT(x, y) ((x).s0 * (y).s0 + (x).s1 * (y).s1)
#define KILN_SUM(v) ((v).s0 + (v).s1)
#define KILN_MAX_COMPONENT(v) fmax((v).s0, (v).s1)
#define KILN_ANY(c) any(c)
#elif N == 3
#define KILN_DOT(x, y) ((x).s0 * (y).s0 + (x).s1 * (y).s1 + (x).s2 * (y).s2)
#define KILN_SUM(v) ((v).s0 + (v).s1 + (v).s2)
#define KILN_MAX_COMPONENT(v) fmax(fmax((v).s0, (v).s1), (v).s2)
#define KILN_ANY(c) any(c)
#else
#define KILN_DOT(x, y) ((x).s0 * (y).s0 + (x).s1 * (y).s1 + (x).s2 * (y).s2 + (x).s3 * (y).s3)
#define KILN_SUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#define KILN_MAX_COMPONENT(v) fmax(fmax((v).s0, (v).s1), fmax((v).s2, (v).s3))
#define KILN_ANY(c) any(c)
#endif

// The specification lets geometric functions contract products and sums into fma, which
// shortens the dependent chain (a GPU's n-body, for one, waits on it).
OVL S dot(T x, T y) {
#pragma clang fp contract(on)
  return KILN_DOT(x, y);
}

// length, distance and normalize must neither overflow nor lose precision to underflow in
// their intermediate sum of squares.
#if KILN_MANT_BITS == 23 || KILN_MANT_BITS == 10
// float and half: the squares of their values cannot overflow or underflow in double.
#define DT KILN_VT(double, N)
OVL S length(T p) {
  DT d = KILN_CONVERT(double, N, p);
  return (S)sqrt(KILN_SUM(d * d));
}

OVL S distance(T p0, T p1) {
  DT d = KILN_CONVERT(double, N, p0) - KILN_CONVERT(double, N, p1);
  return (S)sqrt(KILN_SUM(d * d));
}

OVL T normalize(T p) {
  // Infinite components become +-1, the others 0 (NaNs stay NaN), as the specification asks.
  IT inf = fabs(p) == (T)INFINITY;
  T q = KILN_ANY(inf) ? (inf ? copysign((T)1, p) : (T)0 * p) : p;
  DT d = KILN_CONVERT(double, N, q);
  double sum = KILN_SUM(d * d);
  return sum == 0.0 ? p : KILN_CONVERT(S, N, d / sqrt(sum));
}

#if KILN_MANT_BITS == 23
// The fast variants may be computed in float (the results are undefined when the sum of
// squares overflows).
OVL float fast_length(T p) {
  return sqrt(dot(p, p));
}
OVL float fast_distance(T p0, T p1) {
  return fast_length(p0 - p1);
}
OVL T fast_normalize(T p) {
  float sum = dot(p, p);
  return sum == 0.0f ? p : p * rsqrt(sum);
}
#endif
#undef DT

#else
// double: scale by a power of two that brings the largest component to [1, 2).
OVL double length(T p) {
  T a = fabs(p);
  double m = KILN_MAX_COMPONENT(a);
  if (KILN_ANY(a == (T)INFINITY))
    return INFINITY;
  if (KILN_ANY(p != p))
    return NAN;
  if (m == 0.0)
    return 0.0;
  int e = ilogb(m);
  T s = ldexp(p, -e);
  return ldexp(sqrt(KILN_SUM(s * s)), e);
}

OVL double distance(T p0, T p1) {
  T d = p0 - p1;
  // The difference of finite values overflows only when they are huge: halve them first.
  if (KILN_ANY(fabs(d) == (T)INFINITY) && !KILN_ANY(fabs(p0) == (T)INFINITY) &&
      !KILN_ANY(fabs(p1) == (T)INFINITY))
    return 2.0 * length(p0 * (T)0.5 - p1 * (T)0.5);
  return length(d);
}

OVL T normalize(T p) {
  IT inf = fabs(p) == (T)INFINITY;
  T q = KILN_ANY(inf) ? (inf ? copysign((T)1, p) : (T)0 * p) : p;
  if (KILN_ANY(q != q))
    return (T)NAN;
  double m = KILN_MAX_COMPONENT(fabs(q));
  if (m == 0.0)
    return p;
  T s = ldexp(q, -ilogb(m));
  return s / sqrt(KILN_SUM(s * s));
}
#endif

#if N >= 3
#define KILN_CROSS(a, b)                                                                           \
  (a.s1 * b.s2 - a.s2 * b.s1), (a.s2 * b.s0 - a.s0 * b.s2), (a.s0 * b.s1 - a.s1 * b.s0)
#if N == 3
OVL T cross(T a, T b) {
  return (T)(KILN_CROSS(a, b));
}
#else
OVL T cross(T a, T b) {
  return (T)(KILN_CROSS(a, b), (S)0);
}
#endif
#undef KILN_CROSS
#endif

#undef KILN_SUM
#undef KILN_DOT
#undef KILN_MAX_COMPONENT
#undef KILN_ANY
#endif
