// The generic address space (OpenCL C 3.0 __opencl_c_generic_address_space): to_global,
// to_local and to_private on pointers into each named space, get_fence, generic pointers that
// read and write local and private memory, atomics through generic pointers, and the preferred
// work-group size multiple a work-group-wide algorithm sizes its groups with. Every result is
// checked against a host reference.
#include "cl_test.hpp"

#include <numeric>

using namespace cltest;

namespace {

constexpr const char *kOptions = "-cl-std=CL3.0";

class GenericAddressSpaceTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!supportsOpenCLC(device_, 3, 0) ||
        !deviceInfo<cl_bool>(device_, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT))
      GTEST_SKIP() << "the device has no generic address space";
  }
};

// ---------------------------------------------------------------------------------------------
// to_global, to_local, to_private and get_fence

// Where each probed pointer points. The kernel writes, per work-item and per pointer, one word:
// bit 0 to_global(p) != NULL, bit 1 to_local(p) != NULL, bit 2 to_private(p) != NULL, bit 3 the
// pointer the cast returned is p itself, bit 4 get_fence(p) is CLK_GLOBAL_MEM_FENCE, bit 5
// get_fence(p) is CLK_LOCAL_MEM_FENCE.
enum Space { kGlobal, kLocal, kPrivate };
constexpr cl_uint kToGlobal = 1, kToLocal = 2, kToPrivate = 4, kSamePointer = 8, kGlobalFence = 16,
                  kLocalFence = 32;

cl_uint expectedProbe(Space space) {
  switch (space) {
  case kGlobal:
    return kToGlobal | kSamePointer | kGlobalFence;
  case kLocal:
    return kToLocal | kSamePointer | kLocalFence;
  case kPrivate:
    return kToPrivate | kSamePointer; // the fence bits are masked (any valid flag will do)
  }
  return 0;
}

const char *kProbeFunction = R"(
  uint probe(generic int *p) {
    uint result = 0;
    global int *g = to_global(p);
    local int *l = to_local(p);
    private int *q = to_private(p);
    if (g) result |= 1;
    if (l) result |= 2;
    if (q) result |= 4;
    if ((g && (generic int *)g == p) || (l && (generic int *)l == p) ||
        (q && (generic int *)q == p))
      result |= 8;
    cl_mem_fence_flags fence = get_fence(p);
    if (fence == CLK_GLOBAL_MEM_FENCE) result |= 16;
    if (fence == CLK_LOCAL_MEM_FENCE) result |= 32;
    return result;
  }
  int global_variable = 7;
)";

// The same pointers twice: cast straight from their named space (what the compiler can see
// through), and picked at run time from an array indexed by a kernel argument (what it cannot).
// The second kernel keeps its private variables across a barrier, which moves them out of the
// stack into per-work-item storage.
const std::string kProbeSource = std::string(kProbeFunction) + R"(
  #define PROBES 7
  #define PROBE_ALL(out, base)                                                           \
    {                                                                                    \
      generic int *pointers[PROBES] = {buffer + get_global_id(0), &global_variable,      \
                                       local_argument + get_local_id(0), &local_variable, \
                                       &private_variable,                                \
                                       &private_array[get_local_id(0) % 4], buffer};     \
      for (int i = 0; i < PROBES; ++i)                                                   \
        out[(base) + i] = probe(pointers[index[i]]);                                     \
    }

  kernel void visible(global int *buffer, local int *local_argument, global const int *index,
                      global uint *out) {
    local int local_variable;
    int private_variable = 1;
    int private_array[4] = {1, 2, 3, 4};
    global uint *mine = out + get_global_id(0) * 2 * PROBES;
    mine[0] = probe(buffer + get_global_id(0));
    mine[1] = probe(&global_variable);
    mine[2] = probe(local_argument + get_local_id(0));
    mine[3] = probe(&local_variable);
    mine[4] = probe(&private_variable);
    mine[5] = probe(&private_array[get_local_id(0) % 4]);
    mine[6] = probe(buffer);
    PROBE_ALL(mine, PROBES)
  }

  kernel void across_barrier(global int *buffer, local int *local_argument,
                             global const int *index, global uint *out) {
    local int local_variable;
    int private_variable = get_local_id(0);
    int private_array[4] = {1, 2, 3, 4};
    private_array[get_local_id(0) % 4] += private_variable;
    barrier(CLK_LOCAL_MEM_FENCE);
    global uint *mine = out + get_global_id(0) * 2 * PROBES;
    PROBE_ALL(mine, 0)
    barrier(CLK_LOCAL_MEM_FENCE);
    PROBE_ALL(mine, PROBES)
    buffer[get_global_id(0)] = private_variable + private_array[get_local_id(0) % 4];
  }
)";

constexpr Space kProbeSpaces[] = {kGlobal, kGlobal, kLocal, kLocal, kPrivate, kPrivate, kGlobal};
constexpr size_t kProbes = std::size(kProbeSpaces);

class AddressSpaceCastTest : public GenericAddressSpaceTest,
                             public ::testing::WithParamInterface<const char *> {};

// At the automatic SIMD width, and vectorized whatever the vectorizer's profitability rules say
// (a private array across a barrier, as in `across_barrier`, keeps a kernel scalar by default).
TEST_P(AddressSpaceCastTest, ReportsTheSpaceEachPointerPointsInto) {
  for (std::optional<std::string> width :
       {std::optional<std::string>(), std::optional<std::string>("16")}) {
    ScopedEnvironment simd("KILN_SIMD_WIDTH", width);
    Kernel kernel = buildKernel(kProbeSource, GetParam(), kOptions);
    ASSERT_TRUE(kernel);
    constexpr size_t kItems = 64, kGroup = 16;
    Mem buffer = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    // A permutation, so that the run-time pick differs from the compile-time order.
    std::vector<cl_int> index = {3, 6, 0, 5, 1, 4, 2};
    Mem indexBuffer = bufferWith(index);
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * 2 * kProbes * sizeof(cl_uint));
    ASSERT_TRUE(setArgs(kernel, buffer, LocalSize{kGroup * sizeof(cl_int)}, indexBuffer, out));
    ASSERT_TRUE(run1D(kernel, kItems, kGroup));

    std::vector<cl_uint> expected, actual = read<cl_uint>(out, kItems * 2 * kProbes);
    for (size_t item = 0; item < kItems; ++item)
      for (bool picked : {false, true})
        for (size_t probe = 0; probe < kProbes; ++probe) {
          bool runTimePick = picked || std::string(GetParam()) == "across_barrier";
          Space space = kProbeSpaces[runTimePick ? index[probe] : probe];
          expected.push_back(expectedProbe(space));
          // Any valid fence flag will do for private memory, which no other work-item sees.
          if (space == kPrivate)
            actual[expected.size() - 1] &= ~(kGlobalFence | kLocalFence);
        }
    EXPECT_TRUE(equalArrays(expected, actual)) << "SIMD width " << width.value_or("automatic");
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, AddressSpaceCastTest,
                         ::testing::Values("visible", "across_barrier"));

TEST_F(GenericAddressSpaceTest, CastsOfNullAreNull) {
  Kernel kernel = buildKernel(R"(
    kernel void null_casts(global const int *which, global int *out) {
      generic int *p = which[0] ? (generic int *)which : NULL;
      out[0] = to_global(p) == NULL;
      out[1] = to_local(p) == NULL;
      out[2] = to_private(p) == NULL;
    })",
                              "null_casts", kOptions);
  ASSERT_TRUE(kernel);
  Mem which = bufferWith(std::vector<cl_int>{0});
  Mem out = createBuffer(CL_MEM_READ_WRITE, 3 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, which, out));
  ASSERT_TRUE(run1D(kernel, 1, 1));
  EXPECT_TRUE(equalArrays({1, 1, 1}, read<cl_int>(out, 3)));
}

// ---------------------------------------------------------------------------------------------
// Reading and writing local and private memory through generic pointers

TEST_F(GenericAddressSpaceTest, GenericPointersReadAndWriteLocalAndPrivateMemory) {
  Kernel kernel = buildKernel(R"(
    void add_to(generic int *p, int value) { *p += value; }
    int sum(const generic int *p, int count) {
      int total = 0;
      for (int i = 0; i < count; ++i) total += p[i];
      return total;
    }

    kernel void through_generic(global const int *in, global int *out, local int *scratch) {
      size_t lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);
      int mine[3] = {in[gid], 2 * in[gid], 3};
      add_to(&mine[2], (int)lid);                 // private
      scratch[lid] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      add_to(&scratch[(lid + 1) % size], in[gid]); // local, a neighbour's slot
      barrier(CLK_LOCAL_MEM_FENCE);
      generic int *either = (lid % 2) ? (generic int *)&scratch[lid] : (generic int *)&mine[0];
      add_to(either, 1000);
      out[gid] = sum(mine, 3) + sum(&scratch[lid], 1);
    })",
                              "through_generic", kOptions);
  ASSERT_TRUE(kernel);
  constexpr size_t kItems = 256, kGroup = 32;
  std::vector<cl_int> in = Random(7).values<cl_int>(kItems);
  for (cl_int &value : in)
    value %= 1000;
  Mem inBuffer = bufferWith(in);
  Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, inBuffer, out, LocalSize{kGroup * sizeof(cl_int)}));
  ASSERT_TRUE(run1D(kernel, kItems, kGroup));

  std::vector<cl_int> expected(kItems);
  for (size_t gid = 0; gid < kItems; ++gid) {
    size_t lid = gid % kGroup, group = gid - lid;
    size_t previous = group + (lid + kGroup - 1) % kGroup;
    cl_int mine = in[gid] + 2 * in[gid] + 3 + static_cast<cl_int>(lid);
    cl_int scratch = in[previous];
    if (lid % 2)
      scratch += 1000;
    else
      mine += 1000;
    expected[gid] = mine + scratch;
  }
  EXPECT_TRUE(equalArrays(expected, read<cl_int>(out, kItems)));
}

// ---------------------------------------------------------------------------------------------
// Atomics through generic pointers

// Each work-item adds its value to a global and a local counter through generic pointers, with
// atomic_fetch_add, a compare-exchange loop, and the OpenCL 1.1 atomic_add on the named pointer
// to_global / to_local give back. Group totals are written out by the group's first item.
const char *kGenericAtomicsSource = R"(
  void add_fetch(generic atomic_int *counter, int value) {
    atomic_fetch_add_explicit(counter, value, memory_order_relaxed, memory_scope_work_group);
  }
  void add_exchange(generic atomic_int *counter, int value) {
    int expected = atomic_load_explicit(counter, memory_order_relaxed);
    while (!atomic_compare_exchange_strong(counter, &expected, expected + value))
      ;
  }
  void add_legacy(generic int *counter, int value) {
    if (to_global(counter)) atomic_add(to_global(counter), value);
    else atomic_add(to_local(counter), value);
  }

  kernel void generic_atomics(global const int *in, global int *totals, global int *group_totals) {
    local atomic_int local_counters[2];
    local int local_legacy;
    size_t lid = get_local_id(0), group = get_group_id(0);
    if (lid == 0) {
      atomic_init(&local_counters[0], 0);
      atomic_init(&local_counters[1], 0);
      local_legacy = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int value = in[get_global_id(0)];
    add_fetch((global atomic_int *)&totals[0], value);
    add_exchange((global atomic_int *)&totals[1], value);
    add_legacy(&totals[2], value);
    add_fetch(&local_counters[0], value);
    add_exchange(&local_counters[1], value);
    add_legacy(&local_legacy, value);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      group_totals[group * 3 + 0] = atomic_load(&local_counters[0]);
      group_totals[group * 3 + 1] = atomic_load(&local_counters[1]);
      group_totals[group * 3 + 2] = local_legacy;
    }
  }
)";

TEST_F(GenericAddressSpaceTest, AtomicsThroughGenericPointersToGlobalAndLocalMemory) {
  Kernel kernel = buildKernel(kGenericAtomicsSource, "generic_atomics", kOptions);
  ASSERT_TRUE(kernel);
  constexpr size_t kItems = 4096, kGroup = 64, kGroups = kItems / kGroup;
  std::vector<cl_int> in = Random(11).values<cl_int>(kItems);
  for (cl_int &value : in)
    value %= 10000;
  Mem inBuffer = bufferWith(in);
  Mem totals = bufferWith(std::vector<cl_int>(3, 0));
  Mem groupTotals = createBuffer(CL_MEM_READ_WRITE, kGroups * 3 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, inBuffer, totals, groupTotals));
  ASSERT_TRUE(run1D(kernel, kItems, kGroup));

  cl_int total = std::accumulate(in.begin(), in.end(), 0);
  EXPECT_TRUE(equalArrays({total, total, total}, read<cl_int>(totals, 3)));
  std::vector<cl_int> expectedGroups;
  for (size_t group = 0; group < kGroups; ++group) {
    cl_int sum = std::accumulate(in.begin() + group * kGroup, in.begin() + (group + 1) * kGroup, 0);
    expectedGroups.insert(expectedGroups.end(), {sum, sum, sum});
  }
  EXPECT_TRUE(equalArrays(expectedGroups, read<cl_int>(groupTotals, kGroups * 3)));
}

// Atomics on private memory run lane by lane, which keeps the kernel scalar by default; the
// forced width checks its vectorized form too.
TEST_F(GenericAddressSpaceTest, AtomicsThroughGenericPointersToPrivateMemory) {
  for (std::optional<std::string> width :
       {std::optional<std::string>(), std::optional<std::string>("8")}) {
    ScopedEnvironment simd("KILN_SIMD_WIDTH", width);
    Kernel kernel = buildKernel(R"(
      int bump(generic atomic_int *counter, int times) {
        for (int i = 0; i < times; ++i)
          atomic_fetch_add(counter, i);
        int expected = -1; // the exchange fails and loads the sum into `expected`
        atomic_compare_exchange_strong(counter, &expected, 0);
        int previous = atomic_exchange(counter, expected + 1);
        return previous * 1000 + atomic_load(counter);
      }
      kernel void private_atomics(global int *out) {
        atomic_int counter;
        atomic_init(&counter, (int)get_global_id(0));
        out[get_global_id(0)] = bump(&counter, 4);
      })",
                                "private_atomics", kOptions);
    ASSERT_TRUE(kernel);
    constexpr size_t kItems = 32;
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    ASSERT_TRUE(setArgs(kernel, out));
    ASSERT_TRUE(run1D(kernel, kItems, 8));
    std::vector<cl_int> expected(kItems);
    for (size_t id = 0; id < kItems; ++id) {
      cl_int sum = static_cast<cl_int>(id) + 0 + 1 + 2 + 3;
      expected[id] = sum * 1000 + sum + 1;
    }
    EXPECT_TRUE(equalArrays(expected, read<cl_int>(out, kItems)))
        << "SIMD width " << width.value_or("automatic");
  }
}

// Atomics on local memory, where every work-item of a group competes for the same counters:
// a histogram with data-dependent bins, and fetch-adds whose old values must be distinct (each
// work-item gets its own ticket), with both named and generic pointers.
TEST_F(GenericAddressSpaceTest, LocalAtomicsCountEveryWorkItemOnce) {
  Kernel kernel = buildKernel(R"(
    uint ticket(generic atomic_uint *counter) {
      return atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed,
                                       memory_scope_work_group);
    }
    kernel void local_counting(global const uint *data, global uint *histograms,
                               global uint *tickets, local uint *bins) {
      local atomic_uint next;
      size_t lid = get_local_id(0), size = get_local_size(0), group = get_group_id(0);
      for (size_t i = lid; i < 16; i += size) bins[i] = 0;
      if (lid == 0) atomic_init(&next, 0u);
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_inc(&bins[data[get_global_id(0)] % 16]);
      uint mine = ticket(&next);
      tickets[get_global_id(0)] = mine;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t i = lid; i < 16; i += size) histograms[group * 16 + i] = bins[i];
    })",
                              "local_counting", kOptions);
  ASSERT_TRUE(kernel);
  constexpr size_t kItems = 2048, kGroup = 256, kGroups = kItems / kGroup;
  std::vector<cl_uint> data = Random(5).values<cl_uint>(kItems);
  Mem dataBuffer = bufferWith(data);
  Mem histograms = createBuffer(CL_MEM_READ_WRITE, kGroups * 16 * sizeof(cl_uint));
  Mem tickets = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(kernel, dataBuffer, histograms, tickets, LocalSize{16 * sizeof(cl_uint)}));
  ASSERT_TRUE(run1D(kernel, kItems, kGroup));

  std::vector<cl_uint> expected(kGroups * 16, 0);
  for (size_t item = 0; item < kItems; ++item)
    ++expected[item / kGroup * 16 + data[item] % 16];
  EXPECT_TRUE(equalArrays(expected, read<cl_uint>(histograms, kGroups * 16)));
  std::vector<cl_uint> ticketsRead = read<cl_uint>(tickets, kItems);
  for (size_t group = 0; group < kGroups; ++group) {
    std::vector<cl_uint> groupTickets(ticketsRead.begin() + group * kGroup,
                                      ticketsRead.begin() + (group + 1) * kGroup);
    std::sort(groupTickets.begin(), groupTickets.end());
    std::vector<cl_uint> all(kGroup);
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_TRUE(equalArrays(all, groupTickets)) << "group " << group;
  }
}

// ---------------------------------------------------------------------------------------------
// The preferred work-group size multiple

TEST_F(GenericAddressSpaceTest, PreferredWorkGroupSizeMultipleIsTheWidthWorkItemsRunTogether) {
  Kernel kernel = buildKernel(kGenericAtomicsSource, "generic_atomics", kOptions);
  ASSERT_TRUE(kernel);
  size_t multiple =
      workGroupInfo<size_t>(kernel, device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
  size_t maxGroup = workGroupInfo<size_t>(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE);
  if (isKiln()) {
    // Work-items run in the lanes of vectors, a SIMD group of the work-item vectorizer: at
    // least 4 lanes of 32 bits (SSE), at most 64 (four AVX-512 vectors).
    EXPECT_GE(multiple, 4u);
    EXPECT_LE(multiple, 64u);
  }
  EXPECT_GE(multiple, 1u);
  EXPECT_EQ(0u, multiple & (multiple - 1)) << multiple << " is not a power of two";
  EXPECT_LE(multiple, maxGroup);
}

// What the CTS's generic_atomics_variant does: two work-groups of the preferred multiple, half
// of each group's work-items adding to a local counter and half to a global one, through one
// generic pointer.
TEST_F(GenericAddressSpaceTest, WorkGroupsOfThePreferredMultipleSplitAtomicsBetweenSpaces) {
  Kernel kernel = buildKernel(R"(
    kernel void split(global atomic_int *global_counters, local atomic_int *local_counter) {
      size_t lid = get_local_id(0), group = get_group_id(0);
      if (lid == 0) atomic_store_explicit(local_counter, 0, memory_order_relaxed);
      barrier(CLK_LOCAL_MEM_FENCE);
      generic atomic_int *counter = &global_counters[group * 2];
      if (lid % 2 == 0) counter = local_counter;
      atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_work_group);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid == 0)
        atomic_store_explicit(&global_counters[group * 2 + 1],
                              atomic_load_explicit(local_counter, memory_order_relaxed),
                              memory_order_relaxed);
    })",
                              "split", kOptions);
  ASSERT_TRUE(kernel);
  size_t group =
      workGroupInfo<size_t>(kernel, device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
  Mem counters = bufferWith(std::vector<cl_int>(4, 0));
  ASSERT_TRUE(setArgs(kernel, counters, LocalSize{sizeof(cl_int)}));
  ASSERT_TRUE(run1D(kernel, 2 * group, group));
  cl_int half = static_cast<cl_int>(group / 2), rest = static_cast<cl_int>(group - group / 2);
  // Even local ids (the larger half when the group is odd) use the local counter.
  EXPECT_TRUE(equalArrays({half, rest, half, rest}, read<cl_int>(counters, 4)));
}

} // namespace
