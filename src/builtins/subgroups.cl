// Sub-group functions: cl_khr_subgroups and the cl_khr_subgroup_* extensions (OpenCL C 3.0
// section 6.15.16 and the extension specification), and cl_intel_subgroups with its char, short
// and long companions. Everything is written on five primitives (kiln_primitives.h): the width,
// the two ids, a shuffle and a ballot. Each code generator gives them their device's meaning: on
// the CPU the lanes of the vectorizer's SIMD group (a shuffle is a vector permutation, a ballot
// a vector compare's bits), on the GPU the lanes of a warp.
//
// The non-uniform functions may be called by some work-items of a sub-group only. Reductions
// and scans therefore start from the caller's value in the work-items that take part and the
// operation's identity in the others, so a step that reads a lane which did not take part reads
// the identity. Lanes past the end of the sub-group are never read as values: their results are
// masked out by the sub-group's size.
#include "kiln_internal.h"
#include "kiln_primitives.h"

//===--- Work-item functions ----------------------------------------------===//

static uint linear_local_size(void) {
  return (uint)(__kiln_local_size(0) * __kiln_local_size(1) * __kiln_local_size(2));
}

static uint linear_enqueued_local_size(void) {
  return (uint)(__kiln_enqueued_local_size(0) * __kiln_enqueued_local_size(1) *
                __kiln_enqueued_local_size(2));
}

OVL uint get_max_sub_group_size(void) {
  return __kiln_sub_group_width();
}

OVL uint get_sub_group_local_id(void) {
  return __kiln_sub_group_local_id();
}

OVL uint get_sub_group_id(void) {
  return __kiln_sub_group_id();
}

OVL uint get_num_sub_groups(void) {
  uint width = __kiln_sub_group_width();
  return (linear_local_size() + width - 1) / width;
}

OVL uint get_enqueued_num_sub_groups(void) {
  uint width = __kiln_sub_group_width();
  return (linear_enqueued_local_size() + width - 1) / width;
}

// Every sub-group is full except the last one of the work-group.
OVL uint get_sub_group_size(void) {
  uint width = __kiln_sub_group_width();
  uint first = __kiln_sub_group_id() * width;
  return min(width, linear_local_size() - first);
}

OVL void sub_group_barrier(cl_mem_fence_flags flags) {
  __kiln_sub_group_barrier();
}

OVL void sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  __kiln_sub_group_barrier();
}

//===--- The lanes: shuffle and ballot on every type ----------------------===//

// The value of x in lane `lane` of the sub-group, for every scalar type, on the 32- and 64-bit
// primitives.
#define KILN_SHUFFLE_NARROW(T, U)                                                                  \
  static OVL T lane_value(T x, uint lane) {                                                        \
    return (T)(U)__kiln_sub_group_shuffle_u32((uint)(U)x, lane);                                   \
  }
#define KILN_SHUFFLE_BITS(T, BITS, AS_BITS, AS_T)                                                  \
  static OVL T lane_value(T x, uint lane) {                                                        \
    return AS_T(__kiln_sub_group_shuffle_##BITS(AS_BITS(x), lane));                                \
  }
KILN_SHUFFLE_NARROW(char, uchar)
KILN_SHUFFLE_NARROW(uchar, uchar)
KILN_SHUFFLE_NARROW(short, ushort)
KILN_SHUFFLE_NARROW(ushort, ushort)
KILN_SHUFFLE_BITS(int, u32, as_uint, as_int)
KILN_SHUFFLE_BITS(uint, u32, , )
KILN_SHUFFLE_BITS(float, u32, as_uint, as_float)
KILN_SHUFFLE_BITS(long, u64, as_ulong, as_long)
KILN_SHUFFLE_BITS(ulong, u64, , )
KILN_SHUFFLE_BITS(double, u64, as_ulong, as_double)
static OVL half lane_value(half x, uint lane) {
  return as_half((ushort)__kiln_sub_group_shuffle_u32((uint)as_ushort(x), lane));
}

// Vectors, component by component.
#define KILN_SHUFFLE_VECTORS(T, ...)                                                               \
  static OVL T##2 lane_value(T##2 x, uint lane) {                                                  \
    return (T##2)(lane_value(x.s0, lane), lane_value(x.s1, lane));                                 \
  }                                                                                                \
  static OVL T##3 lane_value(T##3 x, uint lane) {                                                  \
    return (T##3)(lane_value(x.s0, lane), lane_value(x.s1, lane), lane_value(x.s2, lane));         \
  }                                                                                                \
  static OVL T##4 lane_value(T##4 x, uint lane) {                                                  \
    return (T##4)(lane_value(x.lo, lane), lane_value(x.hi, lane));                                 \
  }                                                                                                \
  static OVL T##8 lane_value(T##8 x, uint lane) {                                                  \
    return (T##8)(lane_value(x.lo, lane), lane_value(x.hi, lane));                                 \
  }                                                                                                \
  static OVL T##16 lane_value(T##16 x, uint lane) {                                                \
    return (T##16)(lane_value(x.lo, lane), lane_value(x.hi, lane));                                \
  }
KILN_ALL_TYPES(KILN_SHUFFLE_VECTORS)
KILN_SHUFFLE_VECTORS(half)

// The lanes that take part in the call.
static ulong active_lanes(void) {
  return __kiln_sub_group_ballot(1);
}

static uint first_active_lane(void) {
  return (uint)ctz(active_lanes());
}

//===--- Votes and broadcasts -----------------------------------------------===//

OVL int sub_group_all(int predicate) {
  return __kiln_sub_group_ballot(!predicate) == 0;
}

OVL int sub_group_any(int predicate) {
  return __kiln_sub_group_ballot(predicate) != 0;
}

OVL int sub_group_non_uniform_all(int predicate) {
  return __kiln_sub_group_ballot(!predicate) == 0;
}

OVL int sub_group_non_uniform_any(int predicate) {
  return __kiln_sub_group_ballot(predicate) != 0;
}

OVL int sub_group_elect(void) {
  return __kiln_sub_group_local_id() == first_active_lane();
}

#define KILN_BROADCASTS(T, N)                                                                      \
  OVL KILN_VT(T, N) sub_group_broadcast(KILN_VT(T, N) x, uint lane) {                              \
    return lane_value(x, lane);                                                                    \
  }                                                                                                \
  OVL KILN_VT(T, N) sub_group_non_uniform_broadcast(KILN_VT(T, N) x, uint lane) {                  \
    return lane_value(x, lane);                                                                    \
  }                                                                                                \
  OVL KILN_VT(T, N) intel_sub_group_broadcast(KILN_VT(T, N) x, uint lane) {                        \
    return lane_value(x, lane);                                                                    \
  }                                                                                                \
  OVL KILN_VT(T, N) intel_sub_group_shuffle(KILN_VT(T, N) x, uint lane) {                          \
    return lane_value(x, lane);                                                                    \
  }                                                                                                \
  OVL KILN_VT(T, N) intel_sub_group_shuffle_xor(KILN_VT(T, N) x, uint mask) {                      \
    return lane_value(x, __kiln_sub_group_local_id() ^ mask);                                      \
  }                                                                                                \
  /* The lanes past the sub-group's width come from `next`, those before lane 0 from `previous`    \
   */                                                                                              \
  OVL KILN_VT(T, N) intel_sub_group_shuffle_down(KILN_VT(T, N) current, KILN_VT(T, N) next,        \
                                                 uint delta) {                                     \
    uint width = __kiln_sub_group_width();                                                         \
    uint source = __kiln_sub_group_local_id() + delta;                                             \
    KILN_VT(T, N) low = lane_value(current, source);                                               \
    KILN_VT(T, N) high = lane_value(next, source - width);                                         \
    return source < width ? low : high;                                                            \
  }                                                                                                \
  OVL KILN_VT(T, N) intel_sub_group_shuffle_up(KILN_VT(T, N) previous, KILN_VT(T, N) current,      \
                                               uint delta) {                                       \
    uint width = __kiln_sub_group_width();                                                         \
    uint lane = __kiln_sub_group_local_id();                                                       \
    KILN_VT(T, N) low = lane_value(previous, lane + width - delta);                                \
    KILN_VT(T, N) high = lane_value(current, lane - delta);                                        \
    return lane < delta ? low : high;                                                              \
  }
#define KILN_BROADCASTS_ALL_WIDTHS(T, ...) KILN_EACH_WIDTH(T, KILN_BROADCASTS)
KILN_ALL_TYPES(KILN_BROADCASTS_ALL_WIDTHS)
KILN_BROADCASTS_ALL_WIDTHS(half)

#define KILN_SCALAR_SHUFFLES(T, ...)                                                               \
  OVL T sub_group_broadcast_first(T x) {                                                           \
    return lane_value(x, first_active_lane());                                                     \
  }                                                                                                \
  OVL int sub_group_non_uniform_all_equal(T x) {                                                   \
    return __kiln_sub_group_ballot(x != sub_group_broadcast_first(x)) == 0;                        \
  }                                                                                                \
  OVL T sub_group_shuffle(T x, uint lane) {                                                        \
    return lane_value(x, lane);                                                                    \
  }                                                                                                \
  OVL T sub_group_shuffle_xor(T x, uint mask) {                                                    \
    return lane_value(x, __kiln_sub_group_local_id() ^ mask);                                      \
  }                                                                                                \
  OVL T sub_group_shuffle_up(T x, uint delta) {                                                    \
    return lane_value(x, __kiln_sub_group_local_id() - delta);                                     \
  }                                                                                                \
  OVL T sub_group_shuffle_down(T x, uint delta) {                                                  \
    return lane_value(x, __kiln_sub_group_local_id() + delta);                                     \
  }                                                                                                \
  OVL T sub_group_rotate(T x, int delta) {                                                         \
    uint width = __kiln_sub_group_width();                                                         \
    return lane_value(x, (__kiln_sub_group_local_id() + (uint)delta) & (width - 1));               \
  }                                                                                                \
  OVL T sub_group_clustered_rotate(T x, int delta, uint cluster) {                                 \
    uint lane = __kiln_sub_group_local_id();                                                       \
    uint first = lane & ~(cluster - 1);                                                            \
    return lane_value(x, first + ((lane + (uint)delta) & (cluster - 1)));                          \
  }
KILN_ALL_TYPES(KILN_SCALAR_SHUFFLES)
KILN_SCALAR_SHUFFLES(half)

//===--- Ballots ------------------------------------------------------------===//

static ulong ballot_bits(uint4 value) {
  return (ulong)value.x | ((ulong)value.y << 32);
}

// The bits of the lanes below `count`.
static ulong lanes_below(uint count) {
  return count >= 64 ? ~0ul : (1ul << count) - 1;
}

OVL uint4 sub_group_ballot(int predicate) {
  ulong bits = __kiln_sub_group_ballot(predicate);
  return (uint4)((uint)bits, (uint)(bits >> 32), 0, 0);
}

static uint4 lane_mask(ulong bits) {
  return (uint4)((uint)bits, (uint)(bits >> 32), 0, 0);
}

OVL int sub_group_inverse_ballot(uint4 value) {
  return (int)((ballot_bits(value) >> __kiln_sub_group_local_id()) & 1);
}

OVL int sub_group_ballot_bit_extract(uint4 value, uint index) {
  return index < 64 ? (int)((ballot_bits(value) >> index) & 1) : 0;
}

// The bits of value that stand for lanes: those below the sub-group width (SPIR-V's
// SubgroupSize), as the CTS checks, even in a work-group's smaller last sub-group.
OVL uint sub_group_ballot_bit_count(uint4 value) {
  return (uint)popcount(ballot_bits(value) & lanes_below(__kiln_sub_group_width()));
}

OVL uint sub_group_ballot_inclusive_scan(uint4 value) {
  return (uint)popcount(ballot_bits(value) & lanes_below(__kiln_sub_group_local_id() + 1));
}

OVL uint sub_group_ballot_exclusive_scan(uint4 value) {
  return (uint)popcount(ballot_bits(value) & lanes_below(__kiln_sub_group_local_id()));
}

OVL uint sub_group_ballot_find_lsb(uint4 value) {
  return (uint)ctz(ballot_bits(value) & lanes_below(__kiln_sub_group_width()));
}

OVL uint sub_group_ballot_find_msb(uint4 value) {
  return 63u - (uint)clz(ballot_bits(value) & lanes_below(__kiln_sub_group_width()));
}

OVL uint4 get_sub_group_eq_mask(void) {
  return lane_mask(1ul << __kiln_sub_group_local_id());
}

OVL uint4 get_sub_group_ge_mask(void) {
  return lane_mask(lanes_below(__kiln_sub_group_width()) &
                   ~lanes_below(__kiln_sub_group_local_id()));
}

OVL uint4 get_sub_group_gt_mask(void) {
  return lane_mask(lanes_below(__kiln_sub_group_width()) &
                   ~lanes_below(__kiln_sub_group_local_id() + 1));
}

OVL uint4 get_sub_group_le_mask(void) {
  return lane_mask(lanes_below(__kiln_sub_group_local_id() + 1));
}

OVL uint4 get_sub_group_lt_mask(void) {
  return lane_mask(lanes_below(__kiln_sub_group_local_id()));
}

//===--- Reductions and scans -----------------------------------------------===//

// The operations, each with its identity: KILN_OP_<op>(T, a, b) and KILN_ID_<op>(T).
#define KILN_OP_add(T, a, b) ((a) + (b))
#define KILN_OP_mul(T, a, b) ((a) * (b))
#define KILN_OP_min(T, a, b) min(a, b)
#define KILN_OP_max(T, a, b) max(a, b)
#define KILN_OP_and(T, a, b) ((a) & (b))
#define KILN_OP_or(T, a, b) ((a) | (b))
#define KILN_OP_xor(T, a, b) ((a) ^ (b))
#define KILN_OP_logical_and(T, a, b) ((a) && (b))
#define KILN_OP_logical_or(T, a, b) ((a) || (b))
#define KILN_OP_logical_xor(T, a, b) ((!(a)) != (!(b)))
#define KILN_ID_add(T) ((T)0)
#define KILN_ID_mul(T) ((T)1)
#define KILN_ID_min(T) KILN_CAT(KILN_MAX_, T)
#define KILN_ID_max(T) KILN_CAT(KILN_MIN_, T)
#define KILN_ID_and(T) ((T)~(T)0)
#define KILN_ID_or(T) ((T)0)
#define KILN_ID_xor(T) ((T)0)
#define KILN_ID_logical_and(T) ((T)1)
#define KILN_ID_logical_or(T) ((T)0)
#define KILN_ID_logical_xor(T) ((T)0)
#define KILN_MAX_char CHAR_MAX
#define KILN_MAX_uchar UCHAR_MAX
#define KILN_MAX_short SHRT_MAX
#define KILN_MAX_ushort USHRT_MAX
#define KILN_MAX_int INT_MAX
#define KILN_MAX_uint UINT_MAX
#define KILN_MAX_long LONG_MAX
#define KILN_MAX_ulong ULONG_MAX
#define KILN_MAX_float INFINITY
#define KILN_MAX_double ((double)INFINITY)
#define KILN_MAX_half ((half)INFINITY)
#define KILN_MIN_char CHAR_MIN
#define KILN_MIN_uchar ((uchar)0)
#define KILN_MIN_short SHRT_MIN
#define KILN_MIN_ushort ((ushort)0)
#define KILN_MIN_int INT_MIN
#define KILN_MIN_uint 0u
#define KILN_MIN_long LONG_MIN
#define KILN_MIN_ulong 0ul
#define KILN_MIN_float (-INFINITY)
#define KILN_MIN_double (-(double)INFINITY)
#define KILN_MIN_half (-(half)INFINITY)

// The device's one-instruction reduction of `op` on T (kiln_primitives.h), or -1: it takes
// 32-bit integers, the add, min, max and bitwise operations. Constant for each T and op.
#define KILN_IS_INT32(T) (sizeof(T) == 4 && (T)0.5 == 0)
#define KILN_IS_SIGNED(T) ((T)-1 < (T)0)
#define native_reduction_add(T) (KILN_IS_INT32(T) ? KILN_REDUCE_ADD : -1)
#define native_reduction_min(T)                                                                    \
  (KILN_IS_INT32(T) ? (KILN_IS_SIGNED(T) ? KILN_REDUCE_MIN_SIGNED : KILN_REDUCE_MIN_UNSIGNED) : -1)
#define native_reduction_max(T)                                                                    \
  (KILN_IS_INT32(T) ? (KILN_IS_SIGNED(T) ? KILN_REDUCE_MAX_SIGNED : KILN_REDUCE_MAX_UNSIGNED) : -1)
#define native_reduction_and(T) (KILN_IS_INT32(T) ? KILN_REDUCE_AND : -1)
#define native_reduction_or(T) (KILN_IS_INT32(T) ? KILN_REDUCE_OR : -1)
#define native_reduction_xor(T) (KILN_IS_INT32(T) ? KILN_REDUCE_XOR : -1)
#define native_reduction_mul(T) -1
#define native_reduction_logical_and(T) -1
#define native_reduction_logical_or(T) -1
#define native_reduction_logical_xor(T) -1

// The building blocks, for `op` on T. When every work-item of the sub-group takes part:
//  - reduce_<op>: a butterfly over the lanes of clusters of `cluster` lanes (a power of two),
//    then lane 0 of each cluster's result for all its lanes. The butterfly skips partners past
//    the sub-group's end, whose values are not there; lane 0 of a cluster never needs one of
//    those (its partner at distance d holds lanes d to 2d-1, all past the end if it is).
//  - scan_<op>: Hillis and Steele's steps, each reading a lower lane.
// When only some do, the lanes that do not take part do not run the steps either, so no lane
// can hand on another's partial result: each lane folds the values of the lanes it needs that
// take part, one lane at a time (on a GPU a lane that does not take part holds no value at all).
// The steps of the butterfly and the scan, one per distance, written out: with the distance a
// constant, each step's lanes are a constant permutation, which the CPU's vectorizer emits as one
// vector shuffle (a loop would leave it a lane-by-lane gather until unrolled). Steps at or beyond
// the width are skipped by a branch on constants.
#define KILN_EACH_DISTANCE(STEP, T, op)                                                            \
  STEP(T, op, 1) STEP(T, op, 2) STEP(T, op, 4) STEP(T, op, 8) STEP(T, op, 16) STEP(T, op, 32)
#define KILN_BUTTERFLY_STEP(T, op, distance)                                                       \
  if (distance < cluster) {                                                                        \
    uint partner = lane ^ distance;                                                                \
    T other = lane_value(value, partner);                                                          \
    value = partner < size ? KILN_OP_##op(T, value, other) : value;                                \
  }
#define KILN_SCAN_STEP(T, op, distance)                                                            \
  if (distance < __kiln_sub_group_width()) {                                                       \
    T lower = lane_value(value, lane - distance);                                                  \
    value = lane >= distance ? KILN_OP_##op(T, value, lower) : value;                              \
  }
#define KILN_GROUP_OPS(T, op)                                                                      \
  static OVL T reduce_##op(T x, uint cluster, bool uniform) {                                      \
    if (native_reduction_##op(T) >= 0 && __kiln_sub_group_reduces_natively())                      \
      return (T)__kiln_sub_group_reduce_u32((uint)x, native_reduction_##op(T), cluster);           \
    uint lane = __kiln_sub_group_local_id();                                                       \
    uint size = get_sub_group_size();                                                              \
    ulong active = uniform ? lanes_below(size) : active_lanes();                                   \
    T value = (active >> lane) & 1 ? x : KILN_ID_##op(T);                                          \
    uint first = lane & ~(cluster - 1);                                                            \
    if (active == lanes_below(size)) {                                                             \
      KILN_EACH_DISTANCE(KILN_BUTTERFLY_STEP, T, op)                                               \
      return lane_value(value, first);                                                             \
    }                                                                                              \
    T result = KILN_ID_##op(T);                                                                    \
    if (cluster == __kiln_sub_group_width()) { /* the same lanes for all: uniform reads */         \
      for (uint other = 0; other < size; ++other) {                                                \
        T its = lane_value(value, other);                                                          \
        result = (active >> other) & 1 ? KILN_OP_##op(T, result, its) : result;                    \
      }                                                                                            \
      return result;                                                                               \
    }                                                                                              \
    for (uint step = 0; step < cluster; ++step) {                                                  \
      T other = lane_value(value, first + step);                                                   \
      bool counts = first + step < size && ((active >> (first + step)) & 1);                       \
      result = counts ? KILN_OP_##op(T, result, other) : result;                                   \
    }                                                                                              \
    return result;                                                                                 \
  }                                                                                                \
  static OVL T scan_##op(T x, bool inclusive, bool uniform) {                                      \
    uint lane = __kiln_sub_group_local_id();                                                       \
    ulong active = uniform ? lanes_below(get_sub_group_size()) : active_lanes();                   \
    T value = (active >> lane) & 1 ? x : KILN_ID_##op(T);                                          \
    if (active == lanes_below(get_sub_group_size())) {                                             \
      KILN_EACH_DISTANCE(KILN_SCAN_STEP, T, op)                                                    \
      if (inclusive)                                                                               \
        return value;                                                                              \
      T lower = lane_value(value, lane - 1);                                                       \
      return lane > 0 ? lower : KILN_ID_##op(T);                                                   \
    }                                                                                              \
    T result = KILN_ID_##op(T);                                                                    \
    for (uint other = 0; other < __kiln_sub_group_width(); ++other) {                              \
      T its = lane_value(value, other);                                                            \
      bool counts = (inclusive ? other <= lane : other < lane) && ((active >> other) & 1);         \
      result = counts ? KILN_OP_##op(T, result, its) : result;                                     \
    }                                                                                              \
    return result;                                                                                 \
  }                                                                                                \
  OVL T sub_group_non_uniform_reduce_##op(T x) {                                                   \
    return reduce_##op(x, __kiln_sub_group_width(), false);                                        \
  }                                                                                                \
  OVL T sub_group_non_uniform_scan_inclusive_##op(T x) {                                           \
    return scan_##op(x, true, false);                                                              \
  }                                                                                                \
  OVL T sub_group_non_uniform_scan_exclusive_##op(T x) {                                           \
    return scan_##op(x, false, false);                                                             \
  }                                                                                                \
  OVL T sub_group_clustered_reduce_##op(T x, uint cluster) {                                       \
    return reduce_##op(x, cluster, false);                                                         \
  }

// The uniform functions (sub_group_* and cl_intel_subgroups' intel_sub_group_*) are the
// non-uniform ones called by every work-item, which they know without asking the lanes.
#define KILN_UNIFORM_OPS_NAMED(PREFIX, T, op)                                                      \
  OVL T PREFIX##_reduce_##op(T x) {                                                                \
    return reduce_##op(x, __kiln_sub_group_width(), true);                                         \
  }                                                                                                \
  OVL T PREFIX##_scan_inclusive_##op(T x) {                                                        \
    return scan_##op(x, true, true);                                                               \
  }                                                                                                \
  OVL T PREFIX##_scan_exclusive_##op(T x) {                                                        \
    return scan_##op(x, false, true);                                                              \
  }
#define KILN_UNIFORM_OPS(T, op) KILN_UNIFORM_OPS_NAMED(sub_group, T, op)
#define KILN_INTEL_OPS(T, op) KILN_UNIFORM_OPS_NAMED(intel_sub_group, T, op)

#define KILN_ARITHMETIC(T, ...)                                                                    \
  KILN_GROUP_OPS(T, add)                                                                           \
  KILN_GROUP_OPS(T, mul)                                                                           \
  KILN_GROUP_OPS(T, min)                                                                           \
  KILN_GROUP_OPS(T, max)                                                                           \
  KILN_UNIFORM_OPS(T, add)                                                                         \
  KILN_UNIFORM_OPS(T, min)                                                                         \
  KILN_UNIFORM_OPS(T, max)
#define KILN_BITWISE(T, ...)                                                                       \
  KILN_GROUP_OPS(T, and)                                                                           \
  KILN_GROUP_OPS(T, or)                                                                            \
  KILN_GROUP_OPS(T, xor)
KILN_ALL_TYPES(KILN_ARITHMETIC)
KILN_ARITHMETIC(half)
KILN_INTEGER_TYPES(KILN_BITWISE)
KILN_GROUP_OPS(int, logical_and)
KILN_GROUP_OPS(int, logical_or)
KILN_GROUP_OPS(int, logical_xor)

// cl_intel_subgroups names the reductions of its short and char companions on those types too.
#define KILN_INTEL_ARITHMETIC(T, ...)                                                              \
  KILN_INTEL_OPS(T, add)                                                                           \
  KILN_INTEL_OPS(T, min)                                                                           \
  KILN_INTEL_OPS(T, max)
KILN_SIGNED_TYPES(KILN_INTEL_ARITHMETIC)
KILN_UNSIGNED_TYPES(KILN_INTEL_ARITHMETIC)

//===--- Block reads and writes (cl_intel_subgroups) -----------------------===//

// Element k of lane i is p[k * width + i]: the sub-group reads or writes one contiguous block.
#define KILN_BLOCK_ELEMENT(k) p[(k) * width + lane]
#define KILN_BLOCK_IO(S, SUFFIX)                                                                   \
  OVL S intel_sub_group_block_read##SUFFIX(const __global S *p) {                                  \
    return p[__kiln_sub_group_local_id()];                                                         \
  }                                                                                                \
  OVL void intel_sub_group_block_write##SUFFIX(__global S *p, S data) {                            \
    p[__kiln_sub_group_local_id()] = data;                                                         \
  }                                                                                                \
  KILN_BLOCK_IO_N(S, SUFFIX, 2, KILN_BLOCK_ELEMENT(0), KILN_BLOCK_ELEMENT(1))                      \
  KILN_BLOCK_IO_N(S, SUFFIX, 4, KILN_BLOCK_ELEMENT(0), KILN_BLOCK_ELEMENT(1),                      \
                  KILN_BLOCK_ELEMENT(2), KILN_BLOCK_ELEMENT(3))                                    \
  KILN_BLOCK_IO_N(S, SUFFIX, 8, KILN_BLOCK_ELEMENT(0), KILN_BLOCK_ELEMENT(1),                      \
                  KILN_BLOCK_ELEMENT(2), KILN_BLOCK_ELEMENT(3), KILN_BLOCK_ELEMENT(4),             \
                  KILN_BLOCK_ELEMENT(5), KILN_BLOCK_ELEMENT(6), KILN_BLOCK_ELEMENT(7))
#define KILN_BLOCK_IO_N(S, SUFFIX, N, ...)                                                         \
  OVL S##N intel_sub_group_block_read##SUFFIX##N(const __global S *p) {                            \
    uint lane = __kiln_sub_group_local_id();                                                       \
    uint width = __kiln_sub_group_width();                                                         \
    return (S##N)(__VA_ARGS__);                                                                    \
  }                                                                                                \
  OVL void intel_sub_group_block_write##SUFFIX##N(__global S *p, S##N data) {                      \
    uint lane = __kiln_sub_group_local_id();                                                       \
    uint width = __kiln_sub_group_width();                                                         \
    for (uint k = 0; k < N; ++k)                                                                   \
      KILN_BLOCK_ELEMENT(k) = data[k];                                                             \
  }
#define KILN_BLOCK_IO_16(S, SUFFIX)                                                                \
  OVL S##16 intel_sub_group_block_read##SUFFIX##16(const __global S *p) {                          \
    return (S##16)(intel_sub_group_block_read##SUFFIX##8(p),                                       \
                   intel_sub_group_block_read##SUFFIX##8(p + 8 * __kiln_sub_group_width()));       \
  }                                                                                                \
  OVL void intel_sub_group_block_write##SUFFIX##16(__global S *p, S##16 data) {                    \
    intel_sub_group_block_write##SUFFIX##8(p, data.lo);                                            \
    intel_sub_group_block_write##SUFFIX##8(p + 8 * __kiln_sub_group_width(), data.hi);             \
  }
KILN_BLOCK_IO(uint, )
KILN_BLOCK_IO(uint, _ui)
KILN_BLOCK_IO(ushort, _us)
KILN_BLOCK_IO_16(ushort, _us)
KILN_BLOCK_IO(uchar, _uc)
KILN_BLOCK_IO_16(uchar, _uc)
KILN_BLOCK_IO(ulong, _ul)
