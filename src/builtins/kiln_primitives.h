// The primitives the builtin library is written on. The library calls them but does not define
// them: each device's code generator replaces every call (the CPU one in
// src/devices/cpu/codegen). `dim` is always 0, 1 or 2 when they are called; the library handles
// other values as the specification says.
#ifndef KILN_PRIMITIVES_H
#define KILN_PRIMITIVES_H

ulong __kiln_local_id(uint dim);
ulong __kiln_group_id(uint dim);
ulong __kiln_local_size(uint dim);          // this work-group's size
ulong __kiln_enqueued_local_size(uint dim); // the size given to clEnqueueNDRangeKernel
ulong __kiln_num_groups(uint dim);
ulong __kiln_global_size(uint dim);
ulong __kiln_global_offset(uint dim);
uint __kiln_work_dim(void);

// Whether a generic pointer points into the work-group's local memory, or into the calling
// work-item's private memory; every other pointer is a global one.
bool __kiln_is_local_pointer(const __generic void *ptr) __attribute__((const));
bool __kiln_is_private_pointer(const __generic void *ptr) __attribute__((const));

// Every work-item of the work-group reaches this call before any of them continues. Memory
// ordering between the work-items of a group is the code generator's concern.
void __kiln_work_group_barrier(void) __attribute__((convergent));

// Sub-groups (subgroups.cl). A sub-group is `__kiln_sub_group_width()` consecutive work-items of
// the work-group in linear local id order (the last one may have fewer); the code generator
// fixes the width per kernel and replaces these calls. `lane` is a sub-group local id; the
// value a lane that does not take part in the call holds is undefined.
uint __kiln_sub_group_width(void) __attribute__((const));
uint __kiln_sub_group_local_id(void);
uint __kiln_sub_group_id(void);
// The value of `x` in the work-item of the caller's sub-group whose local id is `lane`.
uint __kiln_sub_group_shuffle_u32(uint x, uint lane) __attribute__((convergent));
ulong __kiln_sub_group_shuffle_u64(ulong x, uint lane) __attribute__((convergent));
// Bit i set when the work-item of local id i takes part in the call with a non-zero predicate.
ulong __kiln_sub_group_ballot(int predicate) __attribute__((convergent));
// Every work-item of the sub-group reaches this call before any of them continues.
void __kiln_sub_group_barrier(void) __attribute__((convergent));
// A shuffle among the work-items `lanes` names (a ballot's bits, the caller's among them), each
// of which makes the same call, even where they reach it on different paths.
ulong __kiln_sub_group_shuffle_among_u64(ulong x, uint lane, ulong lanes)
    __attribute__((convergent));
// Whether the work-items of a sub-group that call a pipe's read or write together take one
// reservation (pipes.cl), answered by the code generator with a constant: where the sub-group's
// lanes run apart (a GPU's warp), one compare-exchange instead of one per work-item; where they
// cannot (the CPU's fallback runs sub-group functions only where the whole work-group calls them,
// and pipe reads and writes sit in divergent retry loops), no.
bool __kiln_pipes_reserve_per_sub_group(void) __attribute__((const));
// Whether those work-items instead each reserve the position of their rank among the callers,
// answered with a constant: where the sub-group's lanes run in step and each lane's atomics run
// after those of the lanes before it (the CPU's SIMD groups), every compare-exchange then
// succeeds at its first try, and no lane waits for another.
bool __kiln_pipes_reserve_by_lane_rank(void) __attribute__((const));
// Whether the device starts the kernels a kernel enqueues itself, where it can (a GPU through
// CUDA's dynamic parallelism), answered with a constant (device_enqueue.cl).
bool __kiln_launches_on_device(void) __attribute__((const));
// Whether the launch parameters hold the launch tree's default queue and the block kernels'
// limits (which the arena holds too, in memory the host reads, which may be far from the
// device), answered with a constant (device_enqueue.cl).
bool __kiln_enqueue_constants_in_launch(void) __attribute__((const));
// Whether the device's float-to-integer conversion instruction saturates and converts NaN to 0
// (the GPU's cvt), answered with a constant: there the library converts with LLVM's saturating
// conversions, which the code generator lowers to that instruction; elsewhere (the CPU, whose
// work-item vectorizer widens the library's code) it clamps in software (conversions.cl).
bool __kiln_converts_saturating_natively(void) __attribute__((const));
// Called in a loop that goes round again only when another work-item has done something (its
// compare-exchange lost to another's update, another moved the counter it read): such a loop
// never waits for another sub-group, though it reads memory others write (the CPU's code
// generator lets loops that may wait run the other sub-groups each round). Code generators
// delete the call (src/compiler/llvm/device_queries.hpp).
void __kiln_retries_without_waiting(void);
// A reduction of 32-bit integers over the work-items of the caller's cluster (`cluster`
// consecutive lanes, a power of two) that take part in the call, which some devices do in one
// instruction (the GPU's redux.sync). Called only where __kiln_sub_group_reduces_natively(),
// which the code generator answers with a constant, says so. `operation` is one of:
#define KILN_REDUCE_ADD 0
#define KILN_REDUCE_MIN_SIGNED 1
#define KILN_REDUCE_MAX_SIGNED 2
#define KILN_REDUCE_MIN_UNSIGNED 3
#define KILN_REDUCE_MAX_UNSIGNED 4
#define KILN_REDUCE_AND 5
#define KILN_REDUCE_OR 6
#define KILN_REDUCE_XOR 7
bool __kiln_sub_group_reduces_natively(void) __attribute__((const));
uint __kiln_sub_group_reduce_u32(uint x, uint operation, uint cluster) __attribute__((convergent));

// The work-group's scratch for the work-group collective functions (work_group_collectives.cl):
// one 8-byte slot per sub-group of the largest work-group the kernel may run in, in local
// memory the code generator sets aside for each kernel that calls this
// (src/compiler/work_group_scratch.hpp).
__local ulong *__kiln_work_group_scratch(void) __attribute__((const));

// Reserves `size` bytes for one printf record (src/compiler/printf_format.hpp) in the launch's
// printf buffer; null when they do not fit. The printf lowering of the linker calls it
// (src/compiler/llvm/printf_lowering.cpp), not the library.
global uchar *__kiln_printf_alloc(ulong size);

#endif
