// Device-side enqueue (OpenCL C 3.0 section 6.15.16): enqueue_kernel (which Clang lowers to the
// __enqueue_kernel_* functions below, giving the block's kernel as a number the compiler put in
// place of its address: compiler/llvm/enqueued_blocks.hpp), enqueue_marker, ndranges, device
// events, get_default_queue and the block kernel queries. Each appends to or reads the launch's
// arena, whose layout compiler/device_enqueue_format.hpp gives; the host launches the records
// once the launch has finished. A device that starts kernels itself takes the enqueues without
// events first (launchOnDevice).
#include "kiln_internal.h"
#include "kiln_primitives.h"

typedef struct {
  ulong maxWorkGroupSize;
  ulong preferredWorkGroupSizeMultiple;
  ulong subGroupSize;
  ulong maxWorkItemSizes[3];
} KilnBlockKernelLimits;

typedef struct {
  int status;
  uint kind;
  ulong profilingResult;
  ulong executionTime;
  ulong completionTime;
} KilnDeviceEvent;

typedef struct {
  global KilnDeviceEvent *entries;
  uint capacity;
  atomic_uint used;
} KilnDeviceEventTable;

typedef struct {
  uint size;
  uint kind;
  ulong queue;
  uint flags;
  uint blockKernel;
  uint workDim;
  uint waitCount;
  ulong globalOffset[3];
  ulong globalSize[3];
  ulong localSize[3];
  uint returnEvent;
  uint localArgumentCount;
  uint literalSize;
  uint literalOffset;
  ulong reserved;
} KilnEnqueueRecord;

typedef struct {
  global uchar *records;
  ulong capacity;
  atomic_ulong used;
  global KilnDeviceEventTable *events;
  ulong defaultQueue;
  const global KilnBlockKernelLimits *kernels;
  ulong kernelCount;
  ulong reserved;
} KilnEnqueueArena;

#define KILN_DEVICE_LAUNCH_LITERAL_BYTES 256
#define KILN_DEVICE_LAUNCH_LOCAL_ARGUMENTS 8

typedef struct {
  uchar literal[KILN_DEVICE_LAUNCH_LITERAL_BYTES];
  ulong globalOffset[3];
  ulong globalSize[3];
  ulong localSize[3];
  ulong localArgumentSizes[KILN_DEVICE_LAUNCH_LOCAL_ARGUMENTS];
  global KilnEnqueueArena *arena;
  uint workDim;
  uint localArgumentCount;
} KilnDeviceLaunchRequest;

#define KILN_RECORD_ALIGNMENT 128
#define KILN_LOCAL_ARGUMENT_ALIGNMENT 128
// The work-items of a work-group the library chooses for a launch the device starts itself, at
// most: eight warps, as the host chooses for the GPU.
#define KILN_DEVICE_LAUNCH_CHOSEN_ITEMS 256
#define KILN_RECORD_KERNEL 1
#define KILN_RECORD_MARKER 2
#define KILN_EVENT_USER 1
#define KILN_EVENT_COMMAND 2

// Resolved by each code generator: this launch's arena.
global KilnEnqueueArena *__kiln_device_enqueue_arena(void);
// Provided by code generators that answer __kiln_launches_on_device() true
// (compiler/device_enqueue_format.hpp).
global KilnDeviceLaunchRequest *__kiln_device_launch_request(uint blockKernel, ulong groupsX,
                                                             ulong groupsY, ulong groupsZ,
                                                             ulong localX, ulong localY,
                                                             ulong localZ, ulong localBytes);
int __kiln_device_launch(global KilnDeviceLaunchRequest *request, uint flags);
// Provided by code generators that answer __kiln_enqueue_constants_in_launch() true: the launch
// tree's default queue, and block kernel `blockKernel`'s limits (null for no block kernel), kept
// where the device reads them fastest (compiler/device_enqueue_format.hpp).
ulong __kiln_launch_default_queue(void);
const global KilnBlockKernelLimits *__kiln_launch_block_kernel_limits(uint blockKernel);
// Opaque values as the bits they hold (compiler/llvm/image_accessors.hpp).
ulong __kiln_queue_bits(queue_t queue);
queue_t __kiln_queue_from_bits(ulong bits);
ulong __kiln_event_bits(clk_event_t event);
clk_event_t __kiln_event_from_bits(ulong bits);

// Block kernel `blockKernel`'s limits, or null for a number that is no block kernel.
static const global KilnBlockKernelLimits *blockKernelLimits(global KilnEnqueueArena *arena,
                                                            uint blockKernel) {
  if (__kiln_enqueue_constants_in_launch())
    return __kiln_launch_block_kernel_limits(blockKernel);
  return blockKernel >= 1 && blockKernel <= arena->kernelCount ? &arena->kernels[blockKernel - 1]
                                                               : 0;
}

static ulong alignUp(ulong value, ulong alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The arena entry of a device event, or null for a value that is none.
static global KilnDeviceEvent *eventEntry(global KilnEnqueueArena *arena, clk_event_t event) {
  ulong bits = __kiln_event_bits(event);
  global KilnDeviceEventTable *table = arena->events;
  if (bits == 0 || bits > table->capacity)
    return 0;
  return &table->entries[bits - 1];
}

static clk_event_t allocateEvent(global KilnEnqueueArena *arena, uint kind) {
  global KilnDeviceEventTable *table = arena->events;
  uint index =
      atomic_fetch_add_explicit(&table->used, 1u, memory_order_relaxed, memory_scope_device);
  if (index >= table->capacity)
    return __kiln_event_from_bits(~0ul); // CLK_NULL_EVENT
  global KilnDeviceEvent *entry = &table->entries[index];
  entry->status = 2 /* CL_SUBMITTED */;
  entry->profilingResult = 0;
  entry->executionTime = 0;
  entry->completionTime = 0;
  entry->kind = kind;
  return __kiln_event_from_bits((ulong)index + 1);
}

// `size` bytes of records, or null when the arena has no room for them.
static global KilnEnqueueRecord *reserveRecord(global KilnEnqueueArena *arena, ulong size) {
  ulong used = atomic_load_explicit(&arena->used, memory_order_relaxed, memory_scope_device);
  do {
    if (used + size > arena->capacity)
      return 0;
  } while (!atomic_compare_exchange_weak_explicit(&arena->used, &used, used + size,
                                                  memory_order_relaxed, memory_order_relaxed,
                                                  memory_scope_device));
  return (global KilnEnqueueRecord *)(arena->records + used);
}

static bool validWaitList(global KilnEnqueueArena *arena, uint count, const clk_event_t *waitList) {
  if ((count == 0) != (waitList == 0))
    return false;
  for (uint i = 0; i < count; ++i)
    if (eventEntry(arena, waitList[i]) == 0)
      return false;
  return true;
}

// Whether `range` may launch the block kernel of `limits` (null for a number that is no block
// kernel, which only a range that leaves the work-group size to the implementation may name).
static bool validNDRange(const global KilnBlockKernelLimits *limits, const ndrange_t *range) {
  uint dims = range->workDimension;
  if (dims < 1 || dims > 3)
    return false;
  ulong items = 1;
  bool chosen = true;
  for (uint d = 0; d < dims; ++d) {
    if (range->globalWorkSize[d] == 0)
      return false;
    items *= range->localWorkSize[d];
    chosen = chosen && range->localWorkSize[d] == 0;
  }
  if (chosen)
    return true;
  if (items == 0 || limits == 0)
    return false;
  for (uint d = 0; d < dims; ++d)
    if (range->localWorkSize[d] > limits->maxWorkItemSizes[d])
      return false;
  return items <= limits->maxWorkGroupSize;
}

// The work-group size of a launch the device starts itself along each axis: the range's, or
// where the implementation chooses, the largest powers of two that divide the global sizes, of
// at most KILN_DEVICE_LAUNCH_CHOSEN_ITEMS work-items together. False when the work-groups do not
// divide the range (a record's launch takes work-groups of two sizes).
static bool uniformLocalSize(const ndrange_t *range, ulong maxItems, ulong *localSize) {
  bool chosen = range->localWorkSize[0] == 0;
  ulong budget = maxItems < KILN_DEVICE_LAUNCH_CHOSEN_ITEMS ? maxItems
                                                            : KILN_DEVICE_LAUNCH_CHOSEN_ITEMS;
  for (uint d = 0; d < 3; ++d) {
    ulong globalSize = d < range->workDimension ? range->globalWorkSize[d] : 1;
    ulong size = 1;
    if (!chosen)
      size = d < range->workDimension ? range->localWorkSize[d] : 1;
    else
      while (size * 2 <= budget && globalSize % (size * 2) == 0)
        size *= 2;
    if (globalSize % size != 0)
      return false;
    budget /= size;
    localSize[d] = size;
  }
  return true;
}

// Starts an enqueue that waits for no event and returns none on the device itself, where the
// device can; false leaves it to a record. The range and sizes are valid; `limits` are the block
// kernel's (null for no block kernel).
static bool launchOnDevice(global KilnEnqueueArena *arena, uint flags, const ndrange_t *range,
                           uint blockKernel, const global KilnBlockKernelLimits *limits,
                           const generic uchar *literal, uint literalSize, uint localCount,
                           const size_t *localSizes) {
  if (!__kiln_launches_on_device() || literalSize > KILN_DEVICE_LAUNCH_LITERAL_BYTES ||
      localCount > KILN_DEVICE_LAUNCH_LOCAL_ARGUMENTS)
    return false;
  ulong localSize[3];
  if (limits == 0 || !uniformLocalSize(range, limits->maxWorkGroupSize, localSize))
    return false;
  ulong localBytes = 0;
  for (uint i = 0; i < localCount; ++i)
    localBytes = alignUp(localBytes, KILN_LOCAL_ARGUMENT_ALIGNMENT) + localSizes[i];
  ulong groups[3];
  for (uint d = 0; d < 3; ++d)
    groups[d] = (d < range->workDimension ? range->globalWorkSize[d] : 1) / localSize[d];
  global KilnDeviceLaunchRequest *request =
      __kiln_device_launch_request(blockKernel, groups[0], groups[1], groups[2], localSize[0],
                                   localSize[1], localSize[2], localBytes);
  if (request == 0)
    return false;
  for (uint i = 0; i < literalSize; ++i)
    request->literal[i] = literal[i];
  for (uint d = 0; d < 3; ++d) {
    bool used = d < range->workDimension;
    request->globalOffset[d] = used ? range->globalWorkOffset[d] : 0;
    request->globalSize[d] = groups[d] * localSize[d];
    request->localSize[d] = localSize[d];
  }
  for (uint i = 0; i < localCount; ++i)
    request->localArgumentSizes[i] = localSizes[i];
  request->arena = arena;
  request->workDim = range->workDimension;
  request->localArgumentCount = localCount;
  return __kiln_device_launch(request, flags) != 0;
}

// Appends a record; `kernel` 0 makes a marker. Returns a CLK_* code.
static int appendRecord(queue_t queue, uint flags, const ndrange_t *range, uint blockKernel,
                        const generic uchar *literal, uint waitCount, const clk_event_t *waitList,
                        clk_event_t *returnEvent, uint localCount, const size_t *localSizes) {
  global KilnEnqueueArena *arena = __kiln_device_enqueue_arena();
  ulong queueBits = __kiln_queue_bits(queue);
  if (queueBits == 0)
    return CLK_INVALID_QUEUE;
  if (!validWaitList(arena, waitCount, waitList))
    return CLK_INVALID_EVENT_WAIT_LIST;
  const global KilnBlockKernelLimits *limits =
      blockKernel != 0 ? blockKernelLimits(arena, blockKernel) : 0;
  if (blockKernel != 0 && !validNDRange(limits, range))
    return CLK_INVALID_NDRANGE;
  for (uint i = 0; i < localCount; ++i)
    if (localSizes[i] == 0)
      return CLK_INVALID_ARG_SIZE;
  uint literalSize = literal != 0 ? *(const generic uint *)literal : 0;
  if (blockKernel != 0 && waitCount == 0 && returnEvent == 0 &&
      launchOnDevice(arena, flags, range, blockKernel, limits, literal, literalSize, localCount,
                     localSizes))
    return CLK_SUCCESS;
  ulong literalOffset = alignUp(sizeof(KilnEnqueueRecord) + waitCount * 4, 8) + localCount * 8;
  literalOffset = alignUp(literalOffset, KILN_RECORD_ALIGNMENT);
  ulong size = alignUp(literalOffset + literalSize, KILN_RECORD_ALIGNMENT);
  global KilnEnqueueRecord *record = reserveRecord(arena, size);
  if (record == 0)
    return CLK_DEVICE_QUEUE_FULL;
  uint event = 0;
  if (returnEvent != 0) {
    clk_event_t made = allocateEvent(arena, KILN_EVENT_COMMAND);
    if (eventEntry(arena, made) == 0) {
      record->size = (uint)size;
      record->kind = 0; // a hole: nothing to run
      return CLK_EVENT_ALLOCATION_FAILURE;
    }
    *returnEvent = made;
    event = (uint)__kiln_event_bits(made);
  }
  record->size = (uint)size;
  record->kind = blockKernel != 0 ? KILN_RECORD_KERNEL : KILN_RECORD_MARKER;
  record->queue = queueBits;
  record->flags = flags;
  record->blockKernel = blockKernel;
  record->workDim = blockKernel != 0 ? range->workDimension : 0;
  record->waitCount = waitCount;
  for (uint d = 0; d < 3; ++d) {
    bool used = blockKernel != 0 && d < range->workDimension;
    record->globalOffset[d] = used ? range->globalWorkOffset[d] : 0;
    record->globalSize[d] = used ? range->globalWorkSize[d] : 1;
    record->localSize[d] = used ? range->localWorkSize[d] : 0;
  }
  record->returnEvent = event;
  record->localArgumentCount = localCount;
  record->literalSize = literalSize;
  record->literalOffset = (uint)literalOffset;
  global uchar *bytes = (global uchar *)record;
  global uint *waits = (global uint *)(bytes + sizeof(KilnEnqueueRecord));
  for (uint i = 0; i < waitCount; ++i)
    waits[i] = (uint)__kiln_event_bits(waitList[i]);
  global ulong *locals =
      (global ulong *)(bytes + alignUp(sizeof(KilnEnqueueRecord) + waitCount * 4, 8));
  for (uint i = 0; i < localCount; ++i)
    locals[i] = localSizes[i];
  for (uint i = 0; i < literalSize; ++i)
    bytes[literalOffset + i] = literal[i];
  return CLK_SUCCESS;
}

static uint kernelNumber(const generic void *invoke) {
  return (uint)(ulong)invoke;
}

int __enqueue_kernel_basic(queue_t queue, int flags, private ndrange_t *range, generic void *invoke,
                           generic void *block) {
  return appendRecord(queue, flags, range, kernelNumber(invoke), block, 0, 0, 0, 0, 0);
}

int __enqueue_kernel_basic_events(queue_t queue, int flags, private ndrange_t *range,
                                  uint waitCount, generic clk_event_t *waitList,
                                  generic clk_event_t *returnEvent, generic void *invoke,
                                  generic void *block) {
  return appendRecord(queue, flags, range, kernelNumber(invoke), block, waitCount, waitList,
                      returnEvent, 0, 0);
}

int __enqueue_kernel_varargs(queue_t queue, int flags, private ndrange_t *range,
                             generic void *invoke, generic void *block, uint localCount,
                             private size_t *localSizes) {
  return appendRecord(queue, flags, range, kernelNumber(invoke), block, 0, 0, 0, localCount,
                      localSizes);
}

int __enqueue_kernel_events_varargs(queue_t queue, int flags, private ndrange_t *range,
                                    uint waitCount, generic clk_event_t *waitList,
                                    generic clk_event_t *returnEvent, generic void *invoke,
                                    generic void *block, uint localCount,
                                    private size_t *localSizes) {
  return appendRecord(queue, flags, range, kernelNumber(invoke), block, waitCount, waitList,
                      returnEvent, localCount, localSizes);
}

OVL int enqueue_marker(queue_t queue, uint waitCount, const clk_event_t *waitList,
                       clk_event_t *returnEvent) {
  // A marker without events to wait for has nothing to mark (the specification requires a
  // wait list).
  if (waitCount == 0 || waitList == 0)
    return CLK_INVALID_EVENT_WAIT_LIST;
  if (returnEvent == 0)
    return CLK_EVENT_ALLOCATION_FAILURE;
  return appendRecord(queue, 0, 0, 0, 0, waitCount, waitList, returnEvent, 0, 0);
}

// Block kernel queries

static const global KilnBlockKernelLimits *limitsOf(const generic void *invoke) {
  return blockKernelLimits(__kiln_device_enqueue_arena(), kernelNumber(invoke));
}

static ulong maxWorkGroupSizeOf(const global KilnBlockKernelLimits *limits) {
  return limits != 0 ? limits->maxWorkGroupSize : 1;
}

uint __get_kernel_work_group_size_impl(generic void *invoke, generic void *block) {
  return (uint)maxWorkGroupSizeOf(limitsOf(invoke));
}

uint __get_kernel_preferred_work_group_size_multiple_impl(generic void *invoke,
                                                          generic void *block) {
  const global KilnBlockKernelLimits *limits = limitsOf(invoke);
  return limits != 0 ? (uint)limits->preferredWorkGroupSizeMultiple : 1;
}

// Work-items of the range's work-groups (the implementation's choice counts as the largest).
static ulong workGroupItems(const private ndrange_t *range,
                            const global KilnBlockKernelLimits *limits) {
  ulong items = 1;
  for (uint d = 0; d < range->workDimension && d < 3; ++d)
    items *= range->localWorkSize[d];
  return items != 0 ? items : maxWorkGroupSizeOf(limits);
}

uint __get_kernel_max_sub_group_size_for_ndrange_impl(private ndrange_t *range,
                                                      generic void *invoke, generic void *block) {
  const global KilnBlockKernelLimits *limits = limitsOf(invoke);
  ulong width = limits != 0 ? limits->subGroupSize : 1;
  ulong items = workGroupItems(range, limits);
  return (uint)(items < width ? items : width);
}

uint __get_kernel_sub_group_count_for_ndrange_impl(private ndrange_t *range, generic void *invoke,
                                                   generic void *block) {
  const global KilnBlockKernelLimits *limits = limitsOf(invoke);
  ulong width = limits != 0 ? limits->subGroupSize : 1;
  ulong items = workGroupItems(range, limits);
  return (uint)((items + width - 1) / width);
}

// Queues and events

OVL queue_t get_default_queue(void) {
  if (__kiln_enqueue_constants_in_launch())
    return __kiln_queue_from_bits(__kiln_launch_default_queue());
  return __kiln_queue_from_bits(__kiln_device_enqueue_arena()->defaultQueue);
}

OVL clk_event_t create_user_event(void) {
  return allocateEvent(__kiln_device_enqueue_arena(), KILN_EVENT_USER);
}

OVL bool is_valid_event(clk_event_t event) {
  return eventEntry(__kiln_device_enqueue_arena(), event) != 0;
}

// Device events live as long as the launch's arena, until every child has finished, which is
// as long as any kernel can name them: retaining and releasing count nothing.
OVL void retain_event(clk_event_t event) {}
OVL void release_event(clk_event_t event) {}

OVL void set_user_event_status(clk_event_t event, int status) {
  global KilnDeviceEvent *entry = eventEntry(__kiln_device_enqueue_arena(), event);
  if (entry != 0 && entry->kind == KILN_EVENT_USER && (status == CL_COMPLETE || status < 0))
    entry->status = status;
}

OVL void capture_event_profiling_info(clk_event_t event, clk_profiling_info name,
                                      global void *value) {
  global KilnDeviceEvent *entry = eventEntry(__kiln_device_enqueue_arena(), event);
  if (entry == 0 || entry->kind != KILN_EVENT_COMMAND || name != CLK_PROFILING_COMMAND_EXEC_TIME)
    return;
  // A command that has finished has its times already; otherwise the host writes them when it
  // finishes.
  if (entry->status == CL_COMPLETE) {
    ((global ulong *)value)[0] = entry->executionTime;
    ((global ulong *)value)[1] = entry->completionTime;
  } else {
    entry->profilingResult = (ulong)value;
  }
}

// ndranges

static ndrange_t makeRange(uint dims, const size_t *offset, const size_t *globalSize,
                           const size_t *localSize) {
  ndrange_t range;
  range.workDimension = dims;
  for (uint d = 0; d < 3; ++d) {
    range.globalWorkOffset[d] = offset != 0 && d < dims ? offset[d] : 0;
    range.globalWorkSize[d] = d < dims ? globalSize[d] : 1;
    range.localWorkSize[d] = localSize != 0 && d < dims ? localSize[d] : 0;
  }
  return range;
}

OVL ndrange_t ndrange_1D(size_t globalSize) {
  return makeRange(1, 0, &globalSize, 0);
}
OVL ndrange_t ndrange_1D(size_t globalSize, size_t localSize) {
  return makeRange(1, 0, &globalSize, &localSize);
}
OVL ndrange_t ndrange_1D(size_t offset, size_t globalSize, size_t localSize) {
  return makeRange(1, &offset, &globalSize, &localSize);
}
OVL ndrange_t ndrange_2D(const size_t globalSize[2]) {
  return makeRange(2, 0, globalSize, 0);
}
OVL ndrange_t ndrange_2D(const size_t globalSize[2], const size_t localSize[2]) {
  return makeRange(2, 0, globalSize, localSize);
}
OVL ndrange_t ndrange_2D(const size_t offset[2], const size_t globalSize[2],
                         const size_t localSize[2]) {
  return makeRange(2, offset, globalSize, localSize);
}
OVL ndrange_t ndrange_3D(const size_t globalSize[3]) {
  return makeRange(3, 0, globalSize, 0);
}
OVL ndrange_t ndrange_3D(const size_t globalSize[3], const size_t localSize[3]) {
  return makeRange(3, 0, globalSize, localSize);
}
OVL ndrange_t ndrange_3D(const size_t offset[3], const size_t globalSize[3],
                         const size_t localSize[3]) {
  return makeRange(3, offset, globalSize, localSize);
}
