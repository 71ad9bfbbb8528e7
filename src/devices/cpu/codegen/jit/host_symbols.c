/*===- host_symbols.c - The host functions JIT-compiled kernels may call -===*
 *
 * Written in C because C++'s <cmath> overloads the double functions (exp, log, ...), which
 * would make taking their addresses by name ambiguous.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* exp10, lgamma_r */
#endif
#include "devices/cpu/codegen/jit/host_symbols.h"

#include <math.h>
#include <string.h>

/* The compiler runtime's helpers have no header; only their addresses are taken. */
#define KILN_HOST_FUNCTION(name)
#define KILN_HOST_COMPILER_RUNTIME(name) extern void name(void);
#include "builtins/host_math_functions.def"
#undef KILN_HOST_FUNCTION
#undef KILN_HOST_COMPILER_RUNTIME

#define KILN_HOST_ENTRY(name) {#name, (void *)&name},
static const struct KilnHostSymbol kHostSymbols[] = {
#define KILN_HOST_FUNCTION KILN_HOST_ENTRY
#define KILN_HOST_LIBCALL KILN_HOST_ENTRY
#define KILN_HOST_COMPILER_RUNTIME KILN_HOST_ENTRY
#include "builtins/host_math_functions.def"
#undef KILN_HOST_FUNCTION
#undef KILN_HOST_LIBCALL
#undef KILN_HOST_COMPILER_RUNTIME
};

const struct KilnHostSymbol *kiln_host_symbols(size_t *count) {
  *count = sizeof kHostSymbols / sizeof kHostSymbols[0];
  return kHostSymbols;
}
