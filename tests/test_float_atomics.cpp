// cl_ext_float_atomics: atomic add, sub, min and max, and loads, stores and exchanges, on float
// and double in global, local and generic memory. Sums use small integers, which every order
// of addition gives exactly; min and max follow fmin and fmax (a NaN operand loses to a number).
#include "cl_test.hpp"

#include <cmath>
#include <limits>

using namespace cltest;

#ifndef CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT
#define CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT 0x4231
#define CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT 0x4232
#define CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT 0x4233
#define CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT (1 << 0)
#define CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT (1 << 1)
#define CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT (1 << 2)
#define CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT (1 << 16)
#define CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT (1 << 17)
#define CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT (1 << 18)
#endif

namespace {

constexpr cl_bitfield kEveryCapability =
    CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT | CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT |
    CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT | CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT |
    CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT | CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT;

/// Every work-item adds into one global and one local value (sums of small integers), and the
/// global min and max gather the work-items' values; the generic forms run on both memories.
constexpr const char *kAccumulateSource = R"(
#define ATOMIC_T KILN_CAT(atomic_, T)
#define KILN_CAT(a, b) KILN_CAT_I(a, b)
#define KILN_CAT_I(a, b) a##b
kernel void accumulate(global T *sums, global T *groupSums, local T *scratch) {
  size_t id = get_global_id(0), l = get_local_id(0);
  T value = (T)(int)(id % 16) - (T)4;
  if (l == 0) {
    atomic_init((volatile local ATOMIC_T *)&scratch[0], (T)0);
    atomic_store((volatile local ATOMIC_T *)&scratch[1], (T)0);
    atomic_store((volatile local ATOMIC_T *)&scratch[2], (T)0);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_fetch_add((volatile global ATOMIC_T *)&sums[0], value);
  atomic_fetch_sub_explicit((volatile global ATOMIC_T *)&sums[1], value, memory_order_relaxed);
  atomic_fetch_min((volatile global ATOMIC_T *)&sums[2], value);
  atomic_fetch_max_explicit((volatile global ATOMIC_T *)&sums[3], value, memory_order_relaxed,
                            memory_scope_device);
  atomic_fetch_add_explicit((volatile local ATOMIC_T *)&scratch[0], value, memory_order_relaxed,
                            memory_scope_work_group);
  atomic_fetch_max((volatile local ATOMIC_T *)&scratch[1], value);
  volatile generic ATOMIC_T *anywhere =
      (volatile generic ATOMIC_T *)(l % 2 ? (generic T *)&sums[4] : (generic T *)&scratch[2]);
  atomic_fetch_add(anywhere, (T)1);
  atomic_fetch_min_explicit(anywhere, (T)1000000, memory_order_relaxed);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    size_t g = get_group_id(0);
    groupSums[3 * g] = atomic_load((volatile local ATOMIC_T *)&scratch[0]);
    groupSums[3 * g + 1] = atomic_load_explicit((volatile local ATOMIC_T *)&scratch[1],
                                                memory_order_relaxed);
    groupSums[3 * g + 2] = atomic_load((volatile local ATOMIC_T *)&scratch[2]);
  }
}
)";

/// One work-item: the edge cases of min and max, and exchanges.
constexpr const char *kEdgeCaseSource = R"(
#define ATOMIC_T KILN_CAT(atomic_, T)
#define KILN_CAT(a, b) KILN_CAT_I(a, b)
#define KILN_CAT_I(a, b) a##b
kernel void edges(global T *out, local T *l) {
  volatile global ATOMIC_T *g = (volatile global ATOMIC_T *)out;
  // +0 against -0: the old value comes back, and the result is a zero.
  atomic_store(&g[0], (T)0);
  out[8] = atomic_fetch_min(&g[0], -(T)0);
  atomic_store(&g[1], -(T)0);
  out[9] = atomic_fetch_max(&g[1], (T)0);
  // A NaN operand leaves a number; a stored NaN gives way to a number (fmin, fmax).
  atomic_store(&g[2], (T)1);
  atomic_fetch_min(&g[2], (T)NAN);
  atomic_store(&g[3], (T)NAN);
  atomic_fetch_max(&g[3], (T)2);
  // Exchange returns the old value and leaves the new one; in local memory too.
  atomic_store(&g[4], (T)3);
  out[10] = atomic_exchange(&g[4], (T)-5);
  volatile local ATOMIC_T *lg = (volatile local ATOMIC_T *)l;
  atomic_store(lg, (T)7);
  out[11] = atomic_exchange_explicit(lg, (T)0.25, memory_order_acq_rel, memory_scope_work_group);
  out[5] = atomic_load(lg);
  out[6] = atomic_fetch_min((volatile local ATOMIC_T *)l, -(T)INFINITY);
  out[7] = atomic_load(lg);
}
)";

class FloatAtomicsTest : public ClTest, public ::testing::WithParamInterface<const char *> {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!hasExtension(device_, "cl_ext_float_atomics"))
      GTEST_SKIP() << "the device has no cl_ext_float_atomics";
  }
  bool isDouble() const { return std::string(GetParam()) == "double"; }
  std::string options() const { return std::string("-cl-std=CL3.0 -DT=") + GetParam(); }

  /// The results, whatever the type, as doubles.
  std::vector<double> readValues(cl_mem buffer, size_t count) {
    std::vector<double> values(count);
    if (isDouble()) {
      values = read<double>(buffer, count);
    } else {
      std::vector<float> floats = read<float>(buffer, count);
      std::copy(floats.begin(), floats.end(), values.begin());
    }
    return values;
  }
  Mem bufferOf(const std::vector<double> &values) {
    if (isDouble())
      return bufferWith(values);
    return bufferWith(std::vector<float>(values.begin(), values.end()));
  }
  size_t elementBytes() const { return isDouble() ? 8 : 4; }
};

TEST_P(FloatAtomicsTest, DeviceReportsWhatWorksAndTheCompilerDefinesItsMacros) {
  cl_device_info query = isDouble() ? CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT
                                    : CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT;
  EXPECT_EQ(kEveryCapability, deviceInfo<cl_bitfield>(device_, query));
  EXPECT_EQ(cl_bitfield{0},
            deviceInfo<cl_bitfield>(device_, CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT));
  std::string size = isDouble() ? "64" : "32";
  std::string source;
  for (const char *feature :
       {"global_atomic_add", "local_atomic_add", "global_atomic_min_max", "local_atomic_min_max"})
    source += "#ifndef __opencl_c_ext_fp" + size + "_" + feature + "\n#error no " + feature +
              "\n#endif\n";
  source += "#ifndef cl_ext_float_atomics\n#error no extension macro\n#endif\n"
            "kernel void k(global T *p) {}\n";
  EXPECT_NE(nullptr, buildKernel(source, "k", options()).get());
}

TEST_P(FloatAtomicsTest, ManyWorkItemsAccumulateExactly) {
  Kernel kernel = buildKernel(kAccumulateSource, "accumulate", options());
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t kGlobal = 4096, kLocal = 256, kGroups = kGlobal / kLocal;
  double inf = std::numeric_limits<double>::infinity();
  Mem sums = bufferOf({0, 0, inf, -inf, 0});
  Mem groupSums = createBuffer(CL_MEM_READ_WRITE, 3 * kGroups * elementBytes());
  ASSERT_TRUE(setArgs(kernel, sums, groupSums, LocalSize{4 * elementBytes()}));
  ASSERT_TRUE(run1D(kernel, kGlobal, kLocal));
  // value = id % 16 - 4: each run of 16 sums to 120 - 64 = 56.
  std::vector<double> totals = readValues(sums, 5);
  EXPECT_EQ(56.0 * (kGlobal / 16), totals[0]);
  EXPECT_EQ(-56.0 * (kGlobal / 16), totals[1]);
  EXPECT_EQ(-4.0, totals[2]);
  EXPECT_EQ(11.0, totals[3]);
  // The odd work-items of every group added 1 to sums[4] (the min leaves it).
  EXPECT_EQ(double(kGlobal / 2), totals[4]);
  std::vector<double> groups = readValues(groupSums, 3 * kGroups);
  for (size_t g = 0; g < kGroups; ++g) {
    EXPECT_EQ(56.0 * (kLocal / 16), groups[3 * g]) << "group " << g;
    EXPECT_EQ(11.0, groups[3 * g + 1]) << "group " << g;
    EXPECT_EQ(double(kLocal / 2), groups[3 * g + 2]) << "group " << g;
  }
}

TEST_P(FloatAtomicsTest, MinMaxOfZerosAndNaNsAndExchanges) {
  Kernel kernel = buildKernel(kEdgeCaseSource, "edges", options());
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, 12 * elementBytes());
  ASSERT_TRUE(setArgs(kernel, out, LocalSize{elementBytes()}));
  ASSERT_TRUE(run1D(kernel, 1, 1));
  std::vector<double> values = readValues(out, 12);
  EXPECT_EQ(0.0, values[0]);
  EXPECT_FALSE(std::signbit(values[8])) << "fetch_min returns the old +0";
  EXPECT_EQ(0.0, values[1]);
  EXPECT_TRUE(std::signbit(values[9])) << "fetch_max returns the old -0";
  EXPECT_EQ(1.0, values[2]);
  EXPECT_EQ(2.0, values[3]);
  EXPECT_EQ(3.0, values[10]);
  EXPECT_EQ(-5.0, values[4]);
  EXPECT_EQ(7.0, values[11]);
  EXPECT_EQ(0.25, values[5]);
  EXPECT_EQ(0.25, values[6]);
  EXPECT_EQ(-std::numeric_limits<double>::infinity(), values[7]);
}

// Where the device keeps denormals (CL_FP_DENORM), atomic adds keep them too, in global and
// local memory, at device and at system scope: the smallest denormal added to zero, and two
// denormals added up.
TEST_P(FloatAtomicsTest, AddsKeepDenormalsWhereTheDeviceDoes) {
  cl_device_fp_config config = deviceInfo<cl_device_fp_config>(
      device_, isDouble() ? CL_DEVICE_DOUBLE_FP_CONFIG : CL_DEVICE_SINGLE_FP_CONFIG);
  if (!(config & CL_FP_DENORM))
    GTEST_SKIP() << "the device flushes denormals";
  const char *source = R"(
    kernel void denormals(global atomic_T *g, local atomic_T *l, T tiny) {
      atomic_init(l, (T)0);
      atomic_fetch_add(&g[0], tiny);
      atomic_fetch_add_explicit(&g[1], tiny, memory_order_relaxed, memory_scope_all_svm_devices);
      atomic_fetch_add(l, tiny);
      atomic_fetch_add(l, tiny);
      atomic_fetch_sub(&g[2], tiny);
      atomic_store(&g[3], atomic_load(l));
    })";
  std::string options = this->options() + " -Datomic_T=atomic_" + GetParam();
  Kernel kernel = buildKernel(source, "denormals", options);
  ASSERT_NE(nullptr, kernel.get());
  double tiny = isDouble() ? std::numeric_limits<double>::denorm_min()
                           : std::numeric_limits<float>::denorm_min();
  Mem values = bufferOf({0.0, 0.0, 0.0, 0.0});
  float tinyFloat = static_cast<float>(tiny);
  ASSERT_TRUE(setArgs(kernel, values, LocalSize{elementBytes()}));
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 2, isDouble() ? sizeof tiny : sizeof tinyFloat,
                                   isDouble() ? static_cast<void *>(&tiny) : &tinyFloat));
  ASSERT_TRUE(run1D(kernel, 1, 1));
  std::vector<double> out = readValues(values, 4);
  EXPECT_EQ(tiny, out[0]);
  EXPECT_EQ(tiny, out[1]);
  EXPECT_EQ(-tiny, out[2]);
  EXPECT_EQ(2 * tiny, out[3]);
}

INSTANTIATE_TEST_SUITE_P(Types, FloatAtomicsTest, ::testing::Values("float", "double"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param);
                         });

} // namespace
