// The double math functions (OpenCL C 3.0 section 6.15.2) that are neither exact operations
// nor LLVM intrinsics (those are in math_common.cl). Each is written for scalars; the vector
// overloads apply it per component. The float versions of acospi, asinpi, atanpi, atan2pi,
// sinpi, cospi, tanpi, pown, rootn and remquo round these.
#include "host_math.h"
#include "kiln_internal.h"

// glibc: erf 1 ulp (16 allowed), erfc 4 (16), expm1 1 (3), log1p 1 (2), hypot 1 (4),
// acosh 2 (4), asinh 2 (4), atanh 2 (5), tgamma 9 (16); remainder is exact.
KILN_HOST1(double, erf, libm_erf)
KILN_HOST1(double, erfc, libm_erfc)
KILN_HOST1(double, expm1, libm_expm1)
KILN_HOST1(double, log1p, libm_log1p)
KILN_HOST2(double, hypot, libm_hypot)
KILN_HOST1(double, acosh, libm_acosh)
KILN_HOST1(double, asinh, libm_asinh)
KILN_HOST1(double, atanh, libm_atanh)
KILN_HOST1(double, tgamma, libm_tgamma)
KILN_HOST2(double, remainder, libm_remainder)

// glibc's cbrt is off by up to 3.4 ulp (2 allowed): one Newton step on y^3 - x, with y^3 in
// double-double, brings it within about 0.5 ulp. x is scaled by 2^+-900 when the cube or its
// rounding error would leave the normal range.
OVL double cbrt(double x) {
  if (x == 0.0 || !(fabs(x) < INFINITY))
    return x + x;
  double a = x, scale = 1.0;
  if (fabs(x) < 0x1p-900) {
    a = x * 0x1p900;
    scale = 0x1p-300;
  } else if (fabs(x) > 0x1p900) {
    a = x * 0x1p-900;
    scale = 0x1p300;
  }
  double y = libm_cbrt(a);
  double y2 = y * y, y2_lo = fma(y, y, -y2);
  double y3 = y2 * y, y3_lo = fma(y2, y, -y3) + y2_lo * y;
  double d = (y3 - a) + y3_lo; // y3 - a is exact: y3 is within a few ulp of a
  return (y - d / (3.0 * y2)) * scale;
}
KILN_SPLIT1(double, cbrt, double)

// 1/pi and pi as unevaluated sums of two doubles.
#define KILN_INV_PI_HI 0x1.45f306dc9c883p-2
#define KILN_INV_PI_LO -0x1.6b01ec5417056p-56
#define KILN_PI_HI 0x1.921fb54442d18p+1
#define KILN_PI_LO 0x1.1a62633145c07p-53

// r / pi with the error of one rounding: exact multiples like atan2(0, -1) / pi come out as
// the exact values the specification prescribes (1, 0.5, 0.75, 0.25). Zeros keep their sign.
static double kiln_div_pi(double r) {
  double hi = r * KILN_INV_PI_HI;
  double lo = fma(r, KILN_INV_PI_HI, -hi) + r * KILN_INV_PI_LO;
  return r == 0.0 ? r : hi + lo;
}

OVL double acospi(double x) {
  return kiln_div_pi(acos(x));
}
OVL double asinpi(double x) {
  return kiln_div_pi(asin(x));
}
OVL double atanpi(double x) {
  return kiln_div_pi(atan(x));
}
OVL double atan2pi(double y, double x) {
  return kiln_div_pi(atan2(y, x));
}
KILN_SPLIT1(double, acospi, double)
KILN_SPLIT1(double, asinpi, double)
KILN_SPLIT1(double, atanpi, double)
KILN_SPLIT2(double, atan2pi, double, double)

// sin, cos and tan of pi * a for |a| <= 0.25, with pi * a = hi + lo evaluated to twice the
// precision and the first-order correction for lo applied.
static double kiln_pi_times(double a, __private double *lo) {
  double hi = KILN_PI_HI * a;
  *lo = fma(KILN_PI_HI, a, -hi) + KILN_PI_LO * a;
  return hi;
}
static double kiln_sinpi_reduced(double a) {
  double lo, hi = kiln_pi_times(a, &lo);
  return sin(hi) + cos(hi) * lo;
}
static double kiln_cospi_reduced(double a) {
  double lo, hi = kiln_pi_times(a, &lo);
  return cos(hi) - sin(hi) * lo;
}
static double kiln_tanpi_reduced(double a) {
  double lo, hi = kiln_pi_times(a, &lo);
  double t = tan(hi);
  return t + (1.0 + t * t) * lo;
}

// The arguments are reduced exactly: x - 2 rint(x / 2) is in [-1, 1] and representable (every
// double of magnitude 2^52 or more is an integer), and so are the differences from 0.5 and 1
// below (Sterbenz).
OVL double sinpi(double x) {
  if (!(fabs(x) < INFINITY))
    return x - x; // NaN
  if (x == trunc(x))
    return copysign(0.0, x); // +0 for positive integers, -0 for negative ones
  double r = x - 2.0 * rint(0.5 * x);
  double a = fabs(r);
  if (a > 0.5)
    a = 1.0 - a; // sin(pi (1 - a)) = sin(pi a)
  double v = a <= 0.25 ? kiln_sinpi_reduced(a) : kiln_cospi_reduced(0.5 - a);
  return copysign(v, r);
}

OVL double cospi(double x) {
  if (!(fabs(x) < INFINITY))
    return x - x;
  double a = fabs(x - 2.0 * rint(0.5 * x));
  if (a <= 0.25)
    return kiln_cospi_reduced(a);
  if (a < 0.75)
    return kiln_sinpi_reduced(0.5 - a); // +0 at a = 0.5
  return -kiln_cospi_reduced(1.0 - a);
}

OVL double tanpi(double x) {
  if (!(fabs(x) < INFINITY))
    return x - x;
  double k = rint(x);
  double r = x - k; // [-0.5, 0.5]
  if (r == 0.0) {
    // Integers: a zero with the sign of x for even ones, of -x for odd ones.
    double k_half = 0.5 * k;
    return copysign(0.0, k_half == trunc(k_half) ? x : -x);
  }
  double a = fabs(r);
  double v;
  if (a == 0.5)
    v = INFINITY; // rint rounds ties to even: +inf after an even integer, -inf after an odd one
  else if (a <= 0.25)
    v = kiln_tanpi_reduced(a);
  else
    v = 1.0 / kiln_tanpi_reduced(0.5 - a);
  return copysign(v, r);
}
KILN_SPLIT1(double, sinpi, double)
KILN_SPLIT1(double, cospi, double)
KILN_SPLIT1(double, tanpi, double)

// pow with an integral exponent has pown's edge cases (the signs of zeros and infinities by
// the parity of n), but glibc's pow gives NaN for a signaling NaN to the power 0; pown(x, 0)
// is 1 for any x.
OVL double pown(double x, int n) {
  return n == 0 ? 1.0 : pow(x, (double)n);
}
KILN_SPLIT2(double, pown, double, int)

// |x|^(1/n) with the sign of x for odd n. 1/n is not exact: with 1/n = e + e_lo,
// |x|^(1/n) = |x|^e * (1 + e_lo log|x|) to well below an ulp, where rounding 1/n alone could
// cost hundreds of ulp for large log|x|.
OVL double rootn(double x, int n) {
  if (n == 0 || x != x)
    return NAN;
  if (x < 0.0 && (n & 1) == 0)
    return NAN;
  double ax = fabs(x);
  double r;
  if (ax == 0.0)
    r = n < 0 ? INFINITY : 0.0;
  else {
    double dn = (double)n;
    double e = 1.0 / dn;
    double e_lo = fma(-e, dn, 1.0) / dn;
    r = pow(ax, e);
    if (r < INFINITY && r > 0.0)
      r = fma(r, e_lo * log(ax), r);
  }
  // Odd n keeps the sign of x (zeros included); even n gives +0 or +inf at zero.
  return (n & 1) ? copysign(r, x) : r;
}
KILN_SPLIT2(double, rootn, double, int)

// Two correctly rounded operations: within about 1 ulp (2 allowed).
OVL double rsqrt(double x) {
  return 1.0 / sqrt(x);
}
KILN_SPLIT1(double, rsqrt, double)

// powr is pow for x >= 0 with its own edge cases (section 7.5.1).
OVL double powr(double x, double y) {
  if (x < 0.0 || x != x || y != y)
    return NAN;
  if (x == 0.0) {
    if (y == 0.0)
      return NAN;
    return y < 0.0 ? INFINITY : 0.0;
  }
  if (x == INFINITY) {
    if (y == 0.0)
      return NAN;
    return y < 0.0 ? 0.0 : INFINITY;
  }
  if (x == 1.0)
    return fabs(y) == INFINITY ? NAN : 1.0;
  return y == 0.0 ? 1.0 : pow(x, y);
}
KILN_SPLIT2(double, powr, double, double)

// remainder(x, y) and the low 7 bits of the nearest integral quotient, with the sign of x / y.
// (glibc's remquo gives only 3 bits.) |x| mod 128|y| is exact and keeps the low quotient bits;
// the rest is exact arithmetic on a quotient below 128.
OVL double remquo(double x, double y, __private int *quo) {
  *quo = 0;
  if (x != x || y != y || fabs(x) == INFINITY || y == 0.0)
    return NAN;
  if (fabs(y) == INFINITY)
    return x;
  double ax = fabs(x), ay = fabs(y);
  double r = fmod(ax, 128.0 * ay); // 128|y| may overflow: then |x| < 128|y| anyway
  double q = floor(r / ay);
  double rem = fma(-q, ay, r); // exact; negative if the division rounded up to the next integer
  if (rem < 0.0) {
    rem += ay;
    q -= 1.0;
  }
  // Round the quotient to nearest, ties to even. ay - rem compares exactly with rem.
  double rest = ay - rem;
  if (rem > rest || (rem == rest && ((int)q & 1))) {
    rem -= ay;
    q += 1.0;
  }
  int bits = (int)q & 127;
  *quo = (x < 0.0) != (y < 0.0) ? -bits : bits;
  return x < 0.0 ? -rem : rem;
}
KILN_PTR2_SPLIT(double, remquo, double, double, int)

OVL double lgamma(double x) {
  int sign;
  return libm_lgamma_r(x, &sign);
}
KILN_SPLIT1(double, lgamma, double)

// The sign is 0 where gamma has a pole (zero and the negative integers).
OVL double lgamma_r(double x, __private int *signp) {
  int sign;
  double r = libm_lgamma_r(x, &sign);
  *signp = (x == 0.0 || (x < 0.0 && x == trunc(x))) ? 0 : sign;
  return r;
}
KILN_PTR_SPLIT(double, lgamma_r, double, int)

OVL double sincos(double x, __private double *cosval) {
  *cosval = cos(x);
  return sin(x);
}
KILN_PTR_SPLIT(double, sincos, double, double)
