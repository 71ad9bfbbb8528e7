/*===- host_symbols.h - The host functions JIT-compiled kernels may call -===*
 *
 * Kernels call a few C library functions (the math functions the builtin library forwards to,
 * and those the x86 backend emits for intrinsics) and compiler runtime helpers. The JIT binds
 * them to the addresses this library was itself linked against, never to whatever the
 * application's global symbols happen to hold: the list is builtins/host_math_functions.def.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KILN_DEVICES_CPU_CODEGEN_HOST_SYMBOLS_H
#define KILN_DEVICES_CPU_CODEGEN_HOST_SYMBOLS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct KilnHostSymbol {
  const char *name;
  void *address;
};

/* The table of host symbols; `count` receives its length. */
const struct KilnHostSymbol *kiln_host_symbols(size_t *count);

#ifdef __cplusplus
}
#endif

#endif
