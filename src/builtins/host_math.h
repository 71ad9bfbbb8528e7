// The C math library functions of the host (glibc's libm) that the builtin library calls for
// the functions LLVM has no intrinsic for. Every one of them must be listed in
// host_math_functions.def: the JIT resolves exactly those names from the process, and the
// build fails when the library references a function missing there.
#ifndef KILN_HOST_MATH_H
#define KILN_HOST_MATH_H

// The double functions have the names of OpenCL builtins (cbrt, erf, ...), which are
// overloaded here: the C functions are declared under other names, bound to the C symbols by
// asm labels. They have no side effects the library cares about (OpenCL has no errno).
#define KILN_PURE __attribute__((const))

KILN_PURE float libm_acoshf(float) __asm__("acoshf");
KILN_PURE double libm_acosh(double) __asm__("acosh");
KILN_PURE float libm_asinhf(float) __asm__("asinhf");
KILN_PURE double libm_asinh(double) __asm__("asinh");
KILN_PURE float libm_atanhf(float) __asm__("atanhf");
KILN_PURE double libm_atanh(double) __asm__("atanh");
KILN_PURE float libm_cbrtf(float) __asm__("cbrtf");
KILN_PURE double libm_cbrt(double) __asm__("cbrt");
KILN_PURE float libm_erff(float) __asm__("erff");
KILN_PURE double libm_erf(double) __asm__("erf");
KILN_PURE float libm_erfcf(float) __asm__("erfcf");
KILN_PURE double libm_erfc(double) __asm__("erfc");
KILN_PURE float libm_expm1f(float) __asm__("expm1f");
KILN_PURE double libm_expm1(double) __asm__("expm1");
KILN_PURE float libm_hypotf(float, float) __asm__("hypotf");
KILN_PURE double libm_hypot(double, double) __asm__("hypot");
KILN_PURE float libm_log1pf(float) __asm__("log1pf");
KILN_PURE double libm_log1p(double) __asm__("log1p");
KILN_PURE float libm_remainderf(float, float) __asm__("remainderf");
KILN_PURE double libm_remainder(double, double) __asm__("remainder");
KILN_PURE float libm_tgammaf(float) __asm__("tgammaf");
KILN_PURE double libm_tgamma(double) __asm__("tgamma");
// The reentrant lgamma: the sign of gamma(x) goes to *sign, not to the global signgam.
float libm_lgammaf_r(float, __private int *sign) __asm__("lgammaf_r");
double libm_lgamma_r(double, __private int *sign) __asm__("lgamma_r");

#undef KILN_PURE
#endif
