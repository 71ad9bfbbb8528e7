// Work-group collective functions (OpenCL C 3.0 section 6.15.13, the optional feature
// __opencl_c_work_group_collective_functions): all, any, broadcast, and the reductions and
// scans of add, min and max.
//
// Each works across the lanes of every sub-group first (subgroups.cl), then passes one value per
// sub-group through the work-group's scratch (__kiln_work_group_scratch(), a slot per
// sub-group). Every work-item then folds the slots it needs itself, so no sub-group waits for
// another to combine them. Two barriers per call: the first publishes the slots, the second
// keeps the next call from overwriting them before every work-item has read this call's. The
// last sub-group of a work-group may be smaller than the others, and a work-group of a
// non-uniform ND-range smaller than the enqueued size: both come from get_sub_group_size() and
// get_num_sub_groups(), which know.
#include "kiln_internal.h"
#include "kiln_primitives.h"

#define KILN_WG_CONVERGENT __attribute__((convergent))

#define KILN_WG_OP_add(a, b) ((a) + (b))
#define KILN_WG_OP_min(a, b) min(a, b)
#define KILN_WG_OP_max(a, b) max(a, b)
#define KILN_WG_ID_add(T) ((T)0)
#define KILN_WG_ID_min(T) KILN_CAT(KILN_WG_MAX_, T)
#define KILN_WG_ID_max(T) KILN_CAT(KILN_WG_MIN_, T)
#define KILN_WG_MAX_int INT_MAX
#define KILN_WG_MAX_uint UINT_MAX
#define KILN_WG_MAX_long LONG_MAX
#define KILN_WG_MAX_ulong ULONG_MAX
#define KILN_WG_MAX_float INFINITY
#define KILN_WG_MAX_double ((double)INFINITY)
#define KILN_WG_MAX_half ((half)INFINITY)
#define KILN_WG_MIN_int INT_MIN
#define KILN_WG_MIN_uint 0u
#define KILN_WG_MIN_long LONG_MIN
#define KILN_WG_MIN_ulong 0ul
#define KILN_WG_MIN_float (-INFINITY)
#define KILN_WG_MIN_double (-(double)INFINITY)
#define KILN_WG_MIN_half (-(half)INFINITY)

// Slot `index` of the scratch as a T (every T here fits in a slot).
#define KILN_WG_SLOT(T, index) (*(__local T *)&__kiln_work_group_scratch()[index])

static KILN_WG_CONVERGENT void work_group_step(void) {
  __kiln_work_group_barrier();
}

// The fold of `op` over slots 0 to count - 1, in every work-item (count is the same for all the
// work-items of a sub-group). Each work-item reads the slots itself: they are few (a sub-group's
// work-items read the same slot at once, which a GPU's shared memory broadcasts), and an
// exchange across the lanes would cost a CPU that runs the work-items of an odd-shaped group one
// at a time two work-group barriers per step. (`unused` picks the overload of T.)
#define KILN_WG_FOLD(T, op)                                                                        \
  static OVL T fold_slots_##op(T unused, uint count) {                                             \
    T result = KILN_WG_ID_##op(T);                                                                 \
    for (uint slot = 0; slot < count; ++slot)                                                      \
      result = KILN_WG_OP_##op(result, KILN_WG_SLOT(T, slot));                                     \
    return result;                                                                                 \
  }

#define KILN_WG_REDUCE_SCAN(T, op)                                                                 \
  KILN_WG_FOLD(T, op)                                                                              \
  OVL KILN_WG_CONVERGENT T work_group_reduce_##op(T x) {                                           \
    T own = sub_group_reduce_##op(x);                                                              \
    if (get_sub_group_local_id() == 0)                                                             \
      KILN_WG_SLOT(T, get_sub_group_id()) = own;                                                   \
    work_group_step();                                                                             \
    T result = fold_slots_##op(x, get_num_sub_groups());                                           \
    work_group_step();                                                                             \
    return result;                                                                                 \
  }                                                                                                \
  /* The sub-group's exclusive scan and its total (the last lane's inclusive value) in its slot;  \
     then the fold of the slots of the sub-groups before it. */                                   \
  static OVL T scan_before_##op(T x, T below) {                                                    \
    if (get_sub_group_local_id() == get_sub_group_size() - 1)                                      \
      KILN_WG_SLOT(T, get_sub_group_id()) = KILN_WG_OP_##op(below, x);                             \
    work_group_step();                                                                             \
    T before = fold_slots_##op(x, get_sub_group_id());                                             \
    work_group_step();                                                                             \
    return before;                                                                                 \
  }                                                                                                \
  OVL KILN_WG_CONVERGENT T work_group_scan_exclusive_##op(T x) {                                   \
    T below = sub_group_scan_exclusive_##op(x);                                                    \
    return KILN_WG_OP_##op(scan_before_##op(x, below), below);                                     \
  }                                                                                                \
  OVL KILN_WG_CONVERGENT T work_group_scan_inclusive_##op(T x) {                                   \
    T below = sub_group_scan_exclusive_##op(x);                                                    \
    return KILN_WG_OP_##op(scan_before_##op(x, below), KILN_WG_OP_##op(below, x));                 \
  }

// The value of the work-item for which `source` holds (exactly one does). The one- and
// two-dimensional forms name the work-item by its linear local id and by (x, y, 0).
#define KILN_WG_BROADCAST(T)                                                                       \
  static OVL T broadcast_from(T x, bool source) {                                                  \
    if (source)                                                                                    \
      KILN_WG_SLOT(T, 0) = x;                                                                      \
    work_group_step();                                                                             \
    T result = KILN_WG_SLOT(T, 0);                                                                 \
    work_group_step();                                                                             \
    return result;                                                                                 \
  }                                                                                                \
  OVL KILN_WG_CONVERGENT T work_group_broadcast(T x, size_t local_id) {                            \
    return broadcast_from(x, get_local_linear_id() == local_id);                                   \
  }                                                                                                \
  OVL KILN_WG_CONVERGENT T work_group_broadcast(T x, size_t local_id_x, size_t local_id_y) {       \
    return broadcast_from(x, get_local_id(0) == local_id_x && get_local_id(1) == local_id_y &&     \
                                 get_local_id(2) == 0);                                            \
  }                                                                                                \
  OVL KILN_WG_CONVERGENT T work_group_broadcast(T x, size_t local_id_x, size_t local_id_y,         \
                                                size_t local_id_z) {                               \
    return broadcast_from(x, get_local_id(0) == local_id_x && get_local_id(1) == local_id_y &&     \
                                 get_local_id(2) == local_id_z);                                   \
  }

#define KILN_WG_TYPE(T, ...)                                                                       \
  KILN_WG_REDUCE_SCAN(T, add)                                                                      \
  KILN_WG_REDUCE_SCAN(T, min)                                                                      \
  KILN_WG_REDUCE_SCAN(T, max)                                                                      \
  KILN_WG_BROADCAST(T)

KILN_WG_TYPE(int)
KILN_WG_TYPE(uint)
KILN_WG_TYPE(long)
KILN_WG_TYPE(ulong)
KILN_WG_TYPE(float)
KILN_WG_TYPE(double)
KILN_WG_TYPE(half)

OVL KILN_WG_CONVERGENT int work_group_all(int predicate) {
  return work_group_reduce_min(predicate != 0 ? 1 : 0);
}

OVL KILN_WG_CONVERGENT int work_group_any(int predicate) {
  return work_group_reduce_max(predicate != 0 ? 1 : 0);
}
