// Pipe functions (OpenCL C 3.0 section 6.15.16, the optional feature __opencl_c_pipes): reads and
// writes of one packet, reservations of several by a work-item, a sub-group or a work-group,
// and the queries. Clang lowers the builtins to calls of the C-named functions defined here.
//
// A pipe is the address of its storage (KilnPipe; runtime/objects/pipe_storage.hpp describes the
// same layout): a ring of slots, each with a sequence number that says whether it is free for
// the packet of a position or holds it (docs/pipes.md). Reserving n packets is one
// compare-exchange of the position counter, done only when the n slots are ready; committing
// them sets their sequences. No work-item ever waits for another: a reservation the ring cannot
// give fails at once (an invalid reserve id, or a negative result of read_pipe and write_pipe).
// That matters on the CPU device, which runs the work-items of a work-group one after another.
// Where a sub-group's lanes run apart (a GPU's warp), the lanes that read or write together
// take one reservation, which the first of them makes while the others wait for its result;
// where they run in step (the CPU's SIMD groups), each reserves the position its rank names.
//
// A pipe may be used by the CPU and a GPU of one context at once, so every atomic is at
// memory_scope_all_svm_devices (system scope on a GPU).
//
// A reserve id holds its first position (bits 0-31), its count (bits 32-62) and a valid bit
// (63); the invalid reserve id is 0.
#include "kiln_internal.h"
#include "kiln_primitives.h"

typedef struct {
  uint packetSize;
  uint capacity;      // CL_PIPE_MAX_PACKETS
  uint positionLimit; // positions count modulo this multiple of the capacity
  uint dataOffset;    // bytes from the start of the storage to slot 0's packet
  uint unused0[12];
  atomic_uint writeReserve; // the next position a writer reserves
  uint unused1[15];
  atomic_uint readReserve; // the next position a reader reserves
  uint unused2[15];
  // then a uint sequence per slot, then the packets from dataOffset
} KilnPipe;
typedef global KilnPipe *Pipe;

#define KILN_PIPE_SCOPE memory_scope_all_svm_devices
#define KILN_RESERVE_ID_VALID (1ul << 63)

// Resolved by each code generator (compiler/llvm/image_accessors.hpp): the storage of a pipe,
// and a reserve id's bits and back.
Pipe __kiln_pipe_storage_ro(read_only pipe uchar p);
Pipe __kiln_pipe_storage_wo(write_only pipe uchar p);
ulong __kiln_reserve_id_bits(reserve_id_t id);
reserve_id_t __kiln_reserve_id_from_bits(ulong bits);

// A sequence says the slot of position p is free for it (2p) or holds its packet (2p + 1).
#define KILN_SLOT_FREE 0u
#define KILN_SLOT_WRITTEN 1u

static uint advance(Pipe storage, uint position, uint by) {
  uint next = position + by; // both less than 2^30
  return next >= storage->positionLimit ? next - storage->positionLimit : next;
}

static global atomic_uint *sequenceOf(Pipe storage, uint position) {
  global atomic_uint *sequences = (global atomic_uint *)(storage + 1);
  return sequences + position % storage->capacity;
}

static global uchar *packetOf(Pipe storage, uint position) {
  return (global uchar *)storage + storage->dataOffset +
         (size_t)(position % storage->capacity) * storage->packetSize;
}

// Whether the slot of `position` is in `state` for that position, read with `order`.
static bool slotInState(Pipe storage, uint position, uint state, memory_order order) {
  uint sequence = atomic_load_explicit(sequenceOf(storage, position), order, KILN_PIPE_SCOPE);
  return sequence == 2 * position + state;
}

// How many of the `count` slots from `position` are in `state` for their positions, counted from
// the first until one is not. The sequences are read 32 at a time with relaxed loads that do not
// wait for each other, then one fence acquires: a reader then sees the writer's packet, and a
// writer overwrites a packet only after its reader is done with it. Acquiring loads would each
// wait for the one before, which on a GPU, where the pipe's memory is at system scope, makes a
// sub-group's reservation of 32 slots take 32 round trips.
static uint readySlots(Pipe storage, uint position, uint count, uint state) {
  uint ready = 0;
  while (ready < count) {
    uint batch = min(count - ready, 32u);
    uint firstUnready = batch;
    for (uint i = 0; i < batch; ++i) {
      uint at = advance(storage, position, ready + i);
      if (!slotInState(storage, at, state, memory_order_relaxed))
        firstUnready = min(firstUnready, i);
    }
    ready += firstUnready;
    if (firstUnready < batch)
      break;
  }
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, KILN_PIPE_SCOPE);
  return ready;
}

static ulong reserveIdBits(uint position, uint count) {
  return KILN_RESERVE_ID_VALID | ((ulong)count << 32) | position;
}

// Reserves `count` positions of `counter` whose slots are in `state` (with `partial`, as many of
// them as are ready from the counter's position on): the reserve id's bits, 0 when the slots are
// not ready (the pipe is full for a writer, empty for a reader). It retries only when another
// work-item moved the counter meanwhile, which means that one succeeded.
static ulong reserve(Pipe storage, global atomic_uint *counter, uint count, uint state,
                     bool partial) {
  if (partial)
    count = min(count, storage->capacity);
  if (count == 0 || count > storage->capacity)
    return 0;
  uint position = atomic_load_explicit(counter, memory_order_relaxed, KILN_PIPE_SCOPE);
  for (;;) {
    __kiln_retries_without_waiting();
    uint ready = readySlots(storage, position, count, state);
    if (!partial && ready < count)
      ready = 0;
    if (ready == 0) {
      uint now = atomic_load_explicit(counter, memory_order_relaxed, KILN_PIPE_SCOPE);
      if (now == position)
        return 0;
      position = now;
      continue;
    }
    if (atomic_compare_exchange_weak_explicit(counter, &position, advance(storage, position, ready),
                                              memory_order_relaxed, memory_order_relaxed,
                                              KILN_PIPE_SCOPE))
      return reserveIdBits(position, ready);
  }
}

static uint firstPosition(ulong bits) { return (uint)bits; }
static uint countOf(ulong bits) { return (uint)(bits >> 32) & 0x7fffffffu; }

// One position each for the work-items of the sub-group that make this call together: the first
// of them reserves for all, and each takes the position of its rank among them. A pipe's counter
// is one address; with a reservation per work-item, a GPU's hundred thousand threads would queue
// on it. The bits of the caller's one-packet reservation, 0 when the pipe had none left for it.
static ulong reserveOneTogether(Pipe storage, global atomic_uint *counter, uint state) {
  ulong lanes = __kiln_sub_group_ballot(1);
  uint lane = __kiln_sub_group_local_id();
  uint leader = (uint)ctz(lanes);
  uint rank = (uint)popcount(lanes & ((1ul << lane) - 1));
  ulong bits = 0;
  if (lane == leader)
    bits = reserve(storage, counter, (uint)popcount(lanes), state, true);
  bits = __kiln_sub_group_shuffle_among_u64(bits, leader, lanes);
  if (bits == 0 || rank >= countOf(bits))
    return 0;
  return reserveIdBits(advance(storage, firstPosition(bits), rank), 1);
}

// One position for each work-item of the sub-group that makes this call together, in the order
// of their ranks, where the lanes run in step: each lane checks the slot its rank names past the
// counter, and the first caller moves the counter past the callers whose slots are ready, counted
// from the first until one is not, in one compare-exchange. One atomic on the counter for the
// whole group, where one per lane would make the workers that share the pipe take the counter's
// cache line from each other sixteen or more times a group. When the first caller's slot is not
// ready while the counter stays put, the pipe was full (or empty) for every caller at that moment,
// and they all fail; callers past the ready ones, and all of them when another work-item moved
// the counter meanwhile, try again, ranked among those left.
// The bits of the caller's one-packet reservation, 0 when the pipe had none for it.
static ulong reserveOneByLaneRank(Pipe storage, global atomic_uint *counter, uint state) {
  for (;;) {
    __kiln_retries_without_waiting();
    ulong lanes = __kiln_sub_group_ballot(1);
    uint lane = __kiln_sub_group_local_id();
    uint first = (uint)ctz(lanes);
    uint rank = (uint)popcount(lanes & ((1ul << lane) - 1));
    uint position = atomic_load_explicit(counter, memory_order_relaxed, KILN_PIPE_SCOPE);
    uint mine = advance(storage, position, rank);
    bool ready = slotInState(storage, mine, state, memory_order_acquire);
    ulong waiting = lanes & ~__kiln_sub_group_ballot(ready);
    if ((waiting >> first) & 1) {
      if (atomic_load_explicit(counter, memory_order_relaxed, KILN_PIPE_SCOPE) == position)
        return 0;
      continue;
    }
    uint granted = waiting == 0 ? (uint)popcount(lanes)
                                : (uint)popcount(lanes & ((1ul << ctz(waiting)) - 1));
    bool moved = false;
    if (lane == first) {
      uint expected = position;
      moved = atomic_compare_exchange_strong_explicit(
          counter, &expected, advance(storage, position, granted), memory_order_relaxed,
          memory_order_relaxed, KILN_PIPE_SCOPE);
    }
    if (((__kiln_sub_group_ballot(moved) >> first) & 1) && rank < granted)
      return reserveIdBits(mine, 1);
  }
}

// Hands the reserved slots on: to their readers after a write, to the writers of the next lap
// after a read. The stores release the packets' bytes (or the reads of them).
static void commit(Pipe storage, ulong bits, bool written) {
  if (bits == 0)
    return;
  uint position = firstPosition(bits);
  for (uint i = 0; i < countOf(bits); ++i) {
    uint at = advance(storage, position, i);
    uint sequence = written ? 2 * at + KILN_SLOT_WRITTEN
                            : 2 * advance(storage, at, storage->capacity) + KILN_SLOT_FREE;
    atomic_store_explicit(sequenceOf(storage, at), sequence, memory_order_release, KILN_PIPE_SCOPE);
  }
}

// Copies a packet in the widest units of 16, 8, 4, 2 or 1 bytes its size and alignment allow.
// Both are constants where the call is inlined, so one loop of whole units remains, which the CPU
// device's vectorizer turns into one access of the lanes' packets instead of a gather and a
// scatter per byte. A slot is aligned as its packet is: slots start at a 128-byte boundary and
// follow each other by the packet's size.
#define KILN_COPY_IN_UNITS(Unit)                                                                   \
  for (uint i = 0; i < size / sizeof(Unit); ++i)                                                   \
  ((generic Unit *)to)[i] = ((const generic Unit *)from)[i]

static void copyPacket(generic void *to, const generic void *from, uint size, uint align) {
  if (align >= 16 && size % 16 == 0)
    KILN_COPY_IN_UNITS(uint4);
  else if (align >= 8 && size % 8 == 0)
    KILN_COPY_IN_UNITS(ulong);
  else if (align >= 4 && size % 4 == 0)
    KILN_COPY_IN_UNITS(uint);
  else if (align >= 2 && size % 2 == 0)
    KILN_COPY_IN_UNITS(ushort);
  else
    KILN_COPY_IN_UNITS(uchar);
}

static ulong reserveRead(Pipe storage, uint count) {
  return reserve(storage, &storage->readReserve, count, KILN_SLOT_WRITTEN, false);
}
static ulong reserveWrite(Pipe storage, uint count) {
  return reserve(storage, &storage->writeReserve, count, KILN_SLOT_FREE, false);
}

// The one packet of a read_pipe or write_pipe without a reservation, from `counter` (the pipe's
// read or write counter) whose slots are in `state`.
static ulong reserveOne(Pipe storage, global atomic_uint *counter, uint state) {
  if (__kiln_pipes_reserve_per_sub_group())
    return reserveOneTogether(storage, counter, state);
  if (__kiln_pipes_reserve_by_lane_rank())
    return reserveOneByLaneRank(storage, counter, state);
  return reserve(storage, counter, 1, state, false);
}

// ---------------------------------------------------------------------------------------------
// One packet, reserved and committed by the work-item: 0 on success, -1 when the pipe is empty
// (read) or full (write).

int __read_pipe_2(read_only pipe uchar p, generic void *data, uint size, uint align) {
  Pipe storage = __kiln_pipe_storage_ro(p);
  ulong bits = reserveOne(storage, &storage->readReserve, KILN_SLOT_WRITTEN);
  if (bits == 0)
    return -1;
  copyPacket(data, packetOf(storage, firstPosition(bits)), size, align);
  commit(storage, bits, false);
  return 0;
}

int __write_pipe_2(write_only pipe uchar p, const generic void *data, uint size, uint align) {
  Pipe storage = __kiln_pipe_storage_wo(p);
  ulong bits = reserveOne(storage, &storage->writeReserve, KILN_SLOT_FREE);
  if (bits == 0)
    return -1;
  copyPacket(packetOf(storage, firstPosition(bits)), data, size, align);
  commit(storage, bits, true);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Packet `index` of a reservation: 0 on success, -1 for an invalid reserve id or an index past
// the reservation.

static global uchar *reservedPacket(Pipe storage, ulong bits, uint index) {
  if (bits == 0 || index >= countOf(bits))
    return 0;
  return packetOf(storage, advance(storage, firstPosition(bits), index));
}

int __read_pipe_4(read_only pipe uchar p, reserve_id_t id, uint index, generic void *data,
                  uint size, uint align) {
  Pipe storage = __kiln_pipe_storage_ro(p);
  global uchar *packet = reservedPacket(storage, __kiln_reserve_id_bits(id), index);
  if (packet == 0)
    return -1;
  copyPacket(data, packet, size, align);
  return 0;
}

int __write_pipe_4(write_only pipe uchar p, reserve_id_t id, uint index, const generic void *data,
                   uint size, uint align) {
  Pipe storage = __kiln_pipe_storage_wo(p);
  global uchar *packet = reservedPacket(storage, __kiln_reserve_id_bits(id), index);
  if (packet == 0)
    return -1;
  copyPacket(packet, data, size, align);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Reservations by one work-item.

reserve_id_t __reserve_read_pipe(read_only pipe uchar p, uint count, uint size, uint align) {
  return __kiln_reserve_id_from_bits(reserveRead(__kiln_pipe_storage_ro(p), count));
}

reserve_id_t __reserve_write_pipe(write_only pipe uchar p, uint count, uint size, uint align) {
  return __kiln_reserve_id_from_bits(reserveWrite(__kiln_pipe_storage_wo(p), count));
}

void __commit_read_pipe(read_only pipe uchar p, reserve_id_t id, uint size, uint align) {
  commit(__kiln_pipe_storage_ro(p), __kiln_reserve_id_bits(id), false);
}

void __commit_write_pipe(write_only pipe uchar p, reserve_id_t id, uint size, uint align) {
  commit(__kiln_pipe_storage_wo(p), __kiln_reserve_id_bits(id), true);
}

OVL bool is_valid_reserve_id(reserve_id_t id) { return __kiln_reserve_id_bits(id) != 0; }

// ---------------------------------------------------------------------------------------------
// Reservations by a work-group: its first work-item reserves and broadcasts the id; the commit
// waits for every work-item's accesses of the packets, then the first work-item commits.

#define KILN_PIPE_CONVERGENT __attribute__((convergent))

KILN_PIPE_CONVERGENT reserve_id_t __work_group_reserve_read_pipe(read_only pipe uchar p,
                                                                 uint count, uint size,
                                                                 uint align) {
  ulong bits = get_local_linear_id() == 0 ? reserveRead(__kiln_pipe_storage_ro(p), count) : 0;
  return __kiln_reserve_id_from_bits(work_group_broadcast(bits, (size_t)0));
}

KILN_PIPE_CONVERGENT reserve_id_t __work_group_reserve_write_pipe(write_only pipe uchar p,
                                                                  uint count, uint size,
                                                                  uint align) {
  ulong bits = get_local_linear_id() == 0 ? reserveWrite(__kiln_pipe_storage_wo(p), count) : 0;
  return __kiln_reserve_id_from_bits(work_group_broadcast(bits, (size_t)0));
}

KILN_PIPE_CONVERGENT void __work_group_commit_read_pipe(read_only pipe uchar p, reserve_id_t id,
                                                        uint size, uint align) {
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_linear_id() == 0)
    commit(__kiln_pipe_storage_ro(p), __kiln_reserve_id_bits(id), false);
}

KILN_PIPE_CONVERGENT void __work_group_commit_write_pipe(write_only pipe uchar p, reserve_id_t id,
                                                         uint size, uint align) {
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_linear_id() == 0)
    commit(__kiln_pipe_storage_wo(p), __kiln_reserve_id_bits(id), true);
}

// ---------------------------------------------------------------------------------------------
// Reservations by a sub-group, likewise with its first work-item.

KILN_PIPE_CONVERGENT reserve_id_t __sub_group_reserve_read_pipe(read_only pipe uchar p,
                                                                uint count, uint size,
                                                                uint align) {
  ulong bits = get_sub_group_local_id() == 0 ? reserveRead(__kiln_pipe_storage_ro(p), count) : 0;
  // The sub-group converges before the broadcast: a GPU's warp may not have after the branch.
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  return __kiln_reserve_id_from_bits(sub_group_broadcast(bits, 0));
}

KILN_PIPE_CONVERGENT reserve_id_t __sub_group_reserve_write_pipe(write_only pipe uchar p,
                                                                 uint count, uint size,
                                                                 uint align) {
  ulong bits = get_sub_group_local_id() == 0 ? reserveWrite(__kiln_pipe_storage_wo(p), count) : 0;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  return __kiln_reserve_id_from_bits(sub_group_broadcast(bits, 0));
}

KILN_PIPE_CONVERGENT void __sub_group_commit_read_pipe(read_only pipe uchar p, reserve_id_t id,
                                                       uint size, uint align) {
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_sub_group_local_id() == 0)
    commit(__kiln_pipe_storage_ro(p), __kiln_reserve_id_bits(id), false);
}

KILN_PIPE_CONVERGENT void __sub_group_commit_write_pipe(write_only pipe uchar p, reserve_id_t id,
                                                        uint size, uint align) {
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_sub_group_local_id() == 0)
    commit(__kiln_pipe_storage_wo(p), __kiln_reserve_id_bits(id), true);
}

// ---------------------------------------------------------------------------------------------
// Queries. The number of packets counts those reserved by writers and not yet by readers: the
// specification allows an approximation while other work-items use the pipe.

static uint packetsIn(Pipe storage) {
  uint written = atomic_load_explicit(&storage->writeReserve, memory_order_relaxed, KILN_PIPE_SCOPE);
  uint read = atomic_load_explicit(&storage->readReserve, memory_order_relaxed, KILN_PIPE_SCOPE);
  return written >= read ? written - read : written + storage->positionLimit - read;
}

uint __get_pipe_num_packets_ro(read_only pipe uchar p, uint size, uint align) {
  return packetsIn(__kiln_pipe_storage_ro(p));
}

uint __get_pipe_num_packets_wo(write_only pipe uchar p, uint size, uint align) {
  return packetsIn(__kiln_pipe_storage_wo(p));
}

uint __get_pipe_max_packets_ro(read_only pipe uchar p, uint size, uint align) {
  return __kiln_pipe_storage_ro(p)->capacity;
}

uint __get_pipe_max_packets_wo(write_only pipe uchar p, uint size, uint align) {
  return __kiln_pipe_storage_wo(p)->capacity;
}
