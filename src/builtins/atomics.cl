// Atomic functions: the OpenCL C 1.0 atom_* (cl_khr_{global,local}_int32_{base,extended}_atomics,
// cl_khr_int64_{base,extended}_atomics), the OpenCL C 1.1 atomic_*, and the OpenCL C 2.0 / 3.0
// C11-style functions (section 6.15.12), with the float and double ones of
// cl_ext_float_atomics.
//
// Work-groups run on several threads, so these are real atomic operations: the GNU __atomic
// builtins, which take the memory order as a runtime value (a constant once inlined) and have
// system scope, stronger than any memory_scope asks. (Clang's __opencl_atomic_* would emit
// target-specific sync scopes that mean nothing to the CPU backend.) Every object is accessed
// through a generic pointer so that the value operands may live in another address space, and
// without volatile: the atomicity, not volatility, is what the functions promise.
#include "kiln_internal.h"

#define KILN_OBJ(T, obj) ((__generic T *)(obj))

// ---------------------------------------------------------------------------------------------
// OpenCL C 1.x: the functions are atomic and promise no ordering, so they are relaxed (as on
// every GPU OpenCL: a GPU would otherwise fence each one). On x86 a locked read-modify-write is
// a full barrier whatever the order asks.
#define KILN_LEGACY_RMW(PREFIX, T, AS)                                                             \
  OVL T PREFIX##add(volatile AS T *p, T v) {                                                       \
    return __atomic_fetch_add(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                                \
  }                                                                                                \
  OVL T PREFIX##sub(volatile AS T *p, T v) {                                                       \
    return __atomic_fetch_sub(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                                \
  }                                                                                                \
  OVL T PREFIX##xchg(volatile AS T *p, T v) {                                                      \
    return __atomic_exchange_n(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                               \
  }                                                                                                \
  OVL T PREFIX##inc(volatile AS T *p) {                                                            \
    return __atomic_fetch_add(KILN_OBJ(T, p), (T)1, __ATOMIC_RELAXED);                             \
  }                                                                                                \
  OVL T PREFIX##dec(volatile AS T *p) {                                                            \
    return __atomic_fetch_sub(KILN_OBJ(T, p), (T)1, __ATOMIC_RELAXED);                             \
  }                                                                                                \
  /* Returns the old value, whether or not it was replaced. */                                     \
  OVL T PREFIX##cmpxchg(volatile AS T *p, T cmp, T v) {                                            \
    __atomic_compare_exchange_n(KILN_OBJ(T, p), &cmp, v, false, __ATOMIC_RELAXED,                  \
                                __ATOMIC_RELAXED);                                                 \
    return cmp;                                                                                    \
  }                                                                                                \
  OVL T PREFIX##min(volatile AS T *p, T v) {                                                       \
    return __atomic_fetch_min(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                                \
  }                                                                                                \
  OVL T PREFIX##max(volatile AS T *p, T v) {                                                       \
    return __atomic_fetch_max(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                                \
  }                                                                                                \
  OVL T PREFIX## and (volatile AS T * p, T v) {                                                    \
    return __atomic_fetch_and(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                                \
  }                                                                                                \
  OVL T PREFIX## or (volatile AS T * p, T v) {                                                     \
    return __atomic_fetch_or(KILN_OBJ(T, p), v, __ATOMIC_RELAXED);                                 \
  }                                                                                                \
  OVL T PREFIX## xor                                                                               \
      (volatile AS T * p, T v) { return __atomic_fetch_xor(KILN_OBJ(T, p), v, __ATOMIC_RELAXED); }

KILN_LEGACY_RMW(atom_, int, __global)
KILN_LEGACY_RMW(atom_, uint, __global)
KILN_LEGACY_RMW(atom_, int, __local)
KILN_LEGACY_RMW(atom_, uint, __local)
KILN_LEGACY_RMW(atom_, long, __global)
KILN_LEGACY_RMW(atom_, ulong, __global)
KILN_LEGACY_RMW(atom_, long, __local)
KILN_LEGACY_RMW(atom_, ulong, __local)
KILN_LEGACY_RMW(atomic_, int, __global)
KILN_LEGACY_RMW(atomic_, uint, __global)
KILN_LEGACY_RMW(atomic_, int, __local)
KILN_LEGACY_RMW(atomic_, uint, __local)

#define KILN_LEGACY_XCHG_FLOAT(AS)                                                                 \
  OVL float atomic_xchg(volatile AS float *p, float v) {                                           \
    return as_float(__atomic_exchange_n(KILN_OBJ(uint, p), as_uint(v), __ATOMIC_RELAXED));         \
  }
KILN_LEGACY_XCHG_FLOAT(__global)
KILN_LEGACY_XCHG_FLOAT(__local)

// ---------------------------------------------------------------------------------------------
// OpenCL C 2.0: without _explicit the order is seq_cst and the scope the device. The builtins
// have no scope (the front end drops it for SPIR), so an atomic whose scope is every device of
// the context, memory_scope_all_svm_devices, accesses its object as volatile: the mark that
// tells a code generator to keep it at system scope (a GPU gives the others its own scope; the
// CPU's atomics are the host's either way).
#define KILN_SYSTEM_OBJ(T, obj) ((volatile __generic T *)(obj))
#define KILN_IN_SCOPE(scope, OP, T, obj, ...)                                                      \
  ((scope) == memory_scope_all_svm_devices ? OP(KILN_SYSTEM_OBJ(T, obj), __VA_ARGS__)              \
                                           : OP(KILN_OBJ(T, obj), __VA_ARGS__))

// F, F_explicit(order) and F_explicit(order, scope) for an operation written as
// KILN_OP_##OP(obj-as-T-pointer, operand, order).
#define KILN_C11_FETCH(NAME, OP, A, T, V, AS)                                                      \
  OVL T NAME##_explicit(volatile AS A *obj, V operand, memory_order order) {                       \
    return OP(KILN_OBJ(T, obj), (T)operand, order);                                                \
  }                                                                                                \
  OVL T NAME##_explicit(volatile AS A *obj, V operand, memory_order order, memory_scope scope) {   \
    return KILN_IN_SCOPE(scope, OP, T, obj, (T)operand, order);                                    \
  }                                                                                                \
  OVL T NAME(volatile AS A *obj, V operand) {                                                      \
    return OP(KILN_OBJ(T, obj), (T)operand, __ATOMIC_SEQ_CST);                                     \
  }

// Loads, stores and exchanges of any type (floats included) go through the generic builtins,
// with the value in a private variable.
#define KILN_EXCHANGE(p, v, order)                                                                 \
  ({                                                                                               \
    __typeof__(v) kiln_in = (v), kiln_out;                                                         \
    __atomic_exchange((p), &kiln_in, &kiln_out, (order));                                          \
    kiln_out;                                                                                      \
  })

#define KILN_C11_BASIC(A, T, AS)                                                                   \
  OVL void atomic_init(volatile AS A *obj, T value) {                                              \
    __atomic_store(KILN_OBJ(T, obj), &value, __ATOMIC_RELAXED);                                    \
  }                                                                                                \
  OVL void atomic_store_explicit(volatile AS A *obj, T desired, memory_order order) {              \
    __atomic_store(KILN_OBJ(T, obj), &desired, order);                                             \
  }                                                                                                \
  OVL void atomic_store_explicit(volatile AS A *obj, T desired, memory_order order,                \
                                 memory_scope scope) {                                             \
    KILN_IN_SCOPE(scope, __atomic_store, T, obj, &desired, order);                                 \
  }                                                                                                \
  OVL void atomic_store(volatile AS A *obj, T desired) {                                           \
    __atomic_store(KILN_OBJ(T, obj), &desired, __ATOMIC_SEQ_CST);                                  \
  }                                                                                                \
  OVL T atomic_load_explicit(volatile AS A *obj, memory_order order) {                             \
    T r;                                                                                           \
    __atomic_load(KILN_OBJ(T, obj), &r, order);                                                    \
    return r;                                                                                      \
  }                                                                                                \
  OVL T atomic_load_explicit(volatile AS A *obj, memory_order order, memory_scope scope) {         \
    T r;                                                                                           \
    KILN_IN_SCOPE(scope, __atomic_load, T, obj, &r, order);                                        \
    return r;                                                                                      \
  }                                                                                                \
  OVL T atomic_load(volatile AS A *obj) {                                                          \
    return atomic_load_explicit(obj, memory_order_seq_cst);                                        \
  }                                                                                                \
  KILN_C11_FETCH(atomic_exchange, KILN_EXCHANGE, A, T, T, AS)

// compare_exchange: *expected is updated only when the exchange fails.
#define KILN_C11_CMPXCHG_KIND(KIND, WEAK, A, T, AS, EAS)                                           \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile AS A *obj, EAS T *expected,          \
                                                     T desired, memory_order success,              \
                                                     memory_order failure) {                       \
    T e = *expected;                                                                               \
    bool done = __atomic_compare_exchange(KILN_OBJ(T, obj), &e, &desired, WEAK, success, failure); \
    if (!done)                                                                                     \
      *expected = e;                                                                               \
    return done;                                                                                   \
  }                                                                                                \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile AS A *obj, EAS T *expected,          \
                                                     T desired, memory_order success,              \
                                                     memory_order failure, memory_scope scope) {   \
    T e = *expected;                                                                               \
    bool done = KILN_IN_SCOPE(scope, __atomic_compare_exchange, T, obj, &e, &desired, WEAK,        \
                              success, failure);                                                   \
    if (!done)                                                                                     \
      *expected = e;                                                                               \
    return done;                                                                                   \
  }                                                                                                \
  OVL bool atomic_compare_exchange_##KIND(volatile AS A *obj, EAS T *expected, T desired) {        \
    return atomic_compare_exchange_##KIND##_explicit(obj, expected, desired, memory_order_seq_cst, \
                                                     memory_order_seq_cst);                        \
  }
#define KILN_C11_CMPXCHG(A, T, AS, EAS)                                                            \
  KILN_C11_CMPXCHG_KIND(strong, false, A, T, AS, EAS)                                              \
  KILN_C11_CMPXCHG_KIND(weak, true, A, T, AS, EAS)

#define KILN_OP_ADD(p, v, order) __atomic_fetch_add(p, v, order)
#define KILN_OP_SUB(p, v, order) __atomic_fetch_sub(p, v, order)
#define KILN_OP_AND(p, v, order) __atomic_fetch_and(p, v, order)
#define KILN_OP_OR(p, v, order) __atomic_fetch_or(p, v, order)
#define KILN_OP_XOR(p, v, order) __atomic_fetch_xor(p, v, order)
#define KILN_OP_MIN(p, v, order) __atomic_fetch_min(p, v, order)
#define KILN_OP_MAX(p, v, order) __atomic_fetch_max(p, v, order)

// Everything on one atomic type in one address space of the object; the expected value of a
// compare_exchange may be in the generic space for a generic object, in the global, local or
// private space for a global or local object.
#define KILN_C11_ALL(A, T, AS)                                                                     \
  KILN_C11_BASIC(A, T, AS)                                                                         \
  KILN_C11_FETCH(atomic_fetch_add, KILN_OP_ADD, A, T, T, AS)                                       \
  KILN_C11_FETCH(atomic_fetch_sub, KILN_OP_SUB, A, T, T, AS)                                       \
  KILN_C11_FETCH(atomic_fetch_min, KILN_OP_MIN, A, T, T, AS)                                       \
  KILN_C11_FETCH(atomic_fetch_max, KILN_OP_MAX, A, T, T, AS)
#define KILN_C11_BITWISE(A, T, V, AS)                                                              \
  KILN_C11_FETCH(atomic_fetch_and, KILN_OP_AND, A, T, V, AS)                                       \
  KILN_C11_FETCH(atomic_fetch_or, KILN_OP_OR, A, T, V, AS)                                         \
  KILN_C11_FETCH(atomic_fetch_xor, KILN_OP_XOR, A, T, V, AS)
#define KILN_C11_TYPE(A, T)                                                                        \
  KILN_C11_ALL(A, T, __generic)                                                                    \
  KILN_C11_ALL(A, T, __global)                                                                     \
  KILN_C11_ALL(A, T, __local)                                                                      \
  KILN_C11_CMPXCHG(A, T, __generic, __generic)                                                     \
  KILN_C11_CMPXCHG(A, T, __global, __global)                                                       \
  KILN_C11_CMPXCHG(A, T, __global, __local)                                                        \
  KILN_C11_CMPXCHG(A, T, __global, __private)                                                      \
  KILN_C11_CMPXCHG(A, T, __local, __global)                                                        \
  KILN_C11_CMPXCHG(A, T, __local, __local)                                                         \
  KILN_C11_CMPXCHG(A, T, __local, __private)
#define KILN_C11_INTEGER_TYPE(A, T)                                                                \
  KILN_C11_TYPE(A, T)                                                                              \
  KILN_C11_BITWISE(A, T, T, __generic)                                                             \
  KILN_C11_BITWISE(A, T, T, __global)                                                              \
  KILN_C11_BITWISE(A, T, T, __local)

KILN_C11_INTEGER_TYPE(atomic_int, int)
KILN_C11_INTEGER_TYPE(atomic_uint, uint)
KILN_C11_INTEGER_TYPE(atomic_long, long)
KILN_C11_INTEGER_TYPE(atomic_ulong, ulong)
KILN_C11_TYPE(atomic_float, float)
KILN_C11_TYPE(atomic_double, double)

// atomic_uintptr_t with a ptrdiff_t operand for add and sub, and the header's mixed intptr_t /
// uintptr_t forms of the bitwise operations and min for the named address spaces: the operand
// converts to the object's type.
#define KILN_C11_POINTER_SIZED(AS)                                                                 \
  KILN_C11_FETCH(atomic_fetch_add, KILN_OP_ADD, atomic_uintptr_t, uintptr_t, ptrdiff_t, AS)        \
  KILN_C11_FETCH(atomic_fetch_sub, KILN_OP_SUB, atomic_uintptr_t, uintptr_t, ptrdiff_t, AS)
#define KILN_C11_MIXED_POINTER_SIZED(AS)                                                           \
  KILN_C11_BITWISE(atomic_intptr_t, intptr_t, uintptr_t, AS)                                       \
  KILN_C11_BITWISE(atomic_uintptr_t, uintptr_t, intptr_t, AS)                                      \
  KILN_C11_FETCH(atomic_fetch_min, KILN_OP_MIN, atomic_intptr_t, intptr_t, uintptr_t, AS)          \
  KILN_C11_FETCH(atomic_fetch_min, KILN_OP_MIN, atomic_uintptr_t, uintptr_t, intptr_t, AS)
KILN_C11_POINTER_SIZED(__generic)
KILN_C11_POINTER_SIZED(__global)
KILN_C11_POINTER_SIZED(__local)
KILN_C11_MIXED_POINTER_SIZED(__global)
KILN_C11_MIXED_POINTER_SIZED(__local)

// atomic_flag is an atomic_int holding 0 (clear) or 1 (set).
#define KILN_FLAG(AS)                                                                              \
  OVL bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *obj, memory_order order) {   \
    return __atomic_exchange_n(KILN_OBJ(int, obj), 1, order) != 0;                                 \
  }                                                                                                \
  OVL bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *obj, memory_order order,     \
                                             memory_scope scope) {                                 \
    return KILN_IN_SCOPE(scope, __atomic_exchange_n, int, obj, 1, order) != 0;                     \
  }                                                                                                \
  OVL bool atomic_flag_test_and_set(volatile AS atomic_flag *obj) {                                \
    return atomic_flag_test_and_set_explicit(obj, memory_order_seq_cst);                           \
  }                                                                                                \
  OVL void atomic_flag_clear_explicit(volatile AS atomic_flag *obj, memory_order order) {          \
    __atomic_store_n(KILN_OBJ(int, obj), 0, order);                                                \
  }                                                                                                \
  OVL void atomic_flag_clear_explicit(volatile AS atomic_flag *obj, memory_order order,            \
                                      memory_scope scope) {                                        \
    KILN_IN_SCOPE(scope, __atomic_store_n, int, obj, 0, order);                                    \
  }                                                                                                \
  OVL void atomic_flag_clear(volatile AS atomic_flag *obj) {                                       \
    atomic_flag_clear_explicit(obj, memory_order_seq_cst);                                         \
  }
KILN_FLAG(__generic)
KILN_FLAG(__global)
KILN_FLAG(__local)
