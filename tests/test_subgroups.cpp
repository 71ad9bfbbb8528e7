// Sub-groups: cl_khr_subgroups, the cl_khr_subgroup_* extensions, cl_intel_subgroups (with its
// char, short and long companions) and cl_intel_required_subgroup_size. Every function runs on
// every type its extension names, at the device's default sub-group size and at every size it
// offers for intel_reqd_sub_group_size, with work-group sizes that are and are not multiples of
// the sub-group size and non-uniform NDRanges; the non-uniform families are called under
// divergent control flow. Each result is checked against a host reference that forms the
// sub-groups as the specification and the CTS do: consecutive linear local ids, the last one of a
// work-group possibly smaller. CI runs the suite again with KILN_VECTORIZE=0, where the CPU
// emulates the required sizes one work-item at a time.
#include "cl_test.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <unistd.h>

using namespace cltest;

namespace {

/// The element types of the collectives, with what the host needs to know of them.
struct ElementType {
  const char *name;
  bool isFloat;
  bool isSigned;
  size_t bytes;
};

constexpr ElementType kTypes[] = {
    {"char", false, true, 1},    {"uchar", false, false, 1}, {"short", false, true, 2},
    {"ushort", false, false, 2}, {"int", false, true, 4},    {"uint", false, false, 4},
    {"long", false, true, 8},    {"ulong", false, false, 8}, {"float", true, true, 4},
    {"double", true, true, 8},
};

/// A value of one of the element types, held as the host computes with it: integers as their
/// bits in 64 (sign-extended), floating-point values as double (every test value is exact in
/// float).
struct Value {
  int64_t bits = 0;
  double real = 0;
};

class Arithmetic {
public:
  explicit Arithmetic(const ElementType &type) : type_(type) {}

  /// Wraps an integer to the type's width (and sign).
  int64_t wrap(uint64_t bits) const {
    if (type_.bytes == 8)
      return static_cast<int64_t>(bits);
    unsigned shift = 64 - 8 * unsigned(type_.bytes);
    uint64_t up = bits << shift;
    return type_.isSigned ? static_cast<int64_t>(up) >> shift : static_cast<int64_t>(up >> shift);
  }
  Value add(Value a, Value b) const {
    return type_.isFloat ? Value{0, a.real + b.real}
                         : Value{wrap(uint64_t(a.bits) + uint64_t(b.bits))};
  }
  Value mul(Value a, Value b) const {
    return type_.isFloat ? Value{0, a.real * b.real}
                         : Value{wrap(uint64_t(a.bits) * uint64_t(b.bits))};
  }
  bool less(Value a, Value b) const {
    if (type_.isFloat)
      return a.real < b.real;
    return type_.isSigned ? a.bits < b.bits : uint64_t(a.bits) < uint64_t(b.bits);
  }
  Value min(Value a, Value b) const { return less(b, a) ? b : a; }
  Value max(Value a, Value b) const { return less(a, b) ? b : a; }
  Value bitAnd(Value a, Value b) const { return {a.bits & b.bits}; }
  Value bitOr(Value a, Value b) const { return {a.bits | b.bits}; }
  Value bitXor(Value a, Value b) const { return {a.bits ^ b.bits}; }
  bool equal(Value a, Value b) const { return type_.isFloat ? a.real == b.real : a.bits == b.bits; }
  Value zero() const { return {}; }
  Value one() const { return {1, 1.0}; }
  Value lowest() const {
    if (type_.isFloat)
      return {0, -INFINITY};
    return {type_.isSigned ? wrap(uint64_t(1) << (8 * type_.bytes - 1)) : 0};
  }
  Value highest() const {
    if (type_.isFloat)
      return {0, INFINITY};
    return {type_.isSigned ? wrap((uint64_t(1) << (8 * type_.bytes - 1)) - 1) : wrap(~uint64_t(0))};
  }
  Value allOnes() const { return {wrap(~uint64_t(0))}; }

  /// The element's bytes, as the device stores it.
  void store(Value value, std::byte *at) const {
    if (type_.isFloat) {
      if (type_.bytes == 4) {
        float f = static_cast<float>(value.real);
        std::memcpy(at, &f, 4);
      } else {
        std::memcpy(at, &value.real, 8);
      }
      return;
    }
    std::memcpy(at, &value.bits, type_.bytes); // little-endian
  }
  Value load(const std::byte *at) const {
    if (type_.isFloat) {
      if (type_.bytes == 4) {
        float f;
        std::memcpy(&f, at, 4);
        return {0, f};
      }
      double d;
      std::memcpy(&d, at, 8);
      return {0, d};
    }
    uint64_t bits = 0;
    std::memcpy(&bits, at, type_.bytes);
    return {wrap(bits)};
  }
  std::string show(Value value) const {
    return type_.isFloat ? std::to_string(value.real) : std::to_string(value.bits);
  }

private:
  const ElementType &type_;
};

/// One sub-group of a launch: the global ids of its work-items, in sub-group local id order.
struct SubGroup {
  size_t first = 0; // global id of local id 0
  size_t size = 0;
  size_t groupFirst = 0; // global id of the work-group's first work-item
};

/// The sub-groups of a one-dimensional launch of `global` work-items in groups of `local`.
std::vector<SubGroup> subGroupsOf(size_t global, size_t local, size_t width) {
  std::vector<SubGroup> result;
  for (size_t group = 0; group < global; group += local) {
    size_t items = std::min(local, global - group);
    for (size_t first = 0; first < items; first += width)
      result.push_back({group + first, std::min(width, items - first), group});
  }
  return result;
}

/// Sub-groups are OpenCL C 2.0 and later (Clang offers the extensions' functions from 2.0).
const char *kOptions = "-cl-std=CL3.0";

/// The attribute that requires sub-groups of `size` work-items, before a kernel; none for 0.
std::string requiredSizeAttribute(unsigned size) {
  if (size == 0)
    return "";
  return "__attribute__((intel_reqd_sub_group_size(" + std::to_string(size) + ")))\n";
}

constexpr size_t kOutputs = 24; // per work-item in the collectives kernel
constexpr int kSentinel = 77;   // what the host writes where a work-item writes nothing

/// The collectives kernel for `type`: output k of work-item g at out[g * kOutputs + k].
std::string collectivesSource(const ElementType &type, unsigned requiredSize) {
  std::ostringstream source;
  if (type.bytes == 8 && type.isFloat)
    source << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  source << "typedef " << type.name << " T;\n";
  if (!type.isFloat)
    source << "#define INTEGER 1\n";
  source << requiredSizeAttribute(requiredSize);
  source << R"(
kernel void collectives(global const T *in, global T *out) {
  size_t g = get_global_id(0);
  T x = in[g];
  int taking = ((long)x & 1) != 0;
  uint size = get_sub_group_size(), lane = get_sub_group_local_id();
  uint cluster = min(4u, get_max_sub_group_size());
  global T *o = out + g * 24;
  o[0] = sub_group_reduce_add(x);
  o[1] = sub_group_reduce_min(x);
  o[2] = sub_group_reduce_max(x);
  o[3] = sub_group_scan_inclusive_add(x);
  o[4] = sub_group_scan_exclusive_min(x);
  o[5] = sub_group_scan_exclusive_max(x);
  o[6] = sub_group_broadcast(x, size - 1);
  o[7] = sub_group_shuffle(x, (lane * 5 + 3) % size);
  o[8] = sub_group_shuffle_xor(x, 1);
  o[9] = sub_group_shuffle_up(x, 1);
  o[10] = sub_group_shuffle_down(x, 1);
  o[11] = sub_group_rotate(x, 3);
  o[12] = sub_group_clustered_reduce_add(x, cluster);
  o[13] = sub_group_clustered_rotate(x, 1, cluster);
  if (taking) {
    o[14] = sub_group_non_uniform_reduce_add(x);
    o[15] = sub_group_non_uniform_scan_inclusive_max(x);
    o[16] = sub_group_non_uniform_scan_exclusive_add(x);
    o[17] = sub_group_broadcast_first(x);
    o[18] = sub_group_non_uniform_reduce_mul(x);
    o[19] = (T)sub_group_non_uniform_all_equal(x);
    o[20] = sub_group_non_uniform_scan_inclusive_min(x);
#ifdef INTEGER
    o[21] = sub_group_non_uniform_reduce_and(x);
    o[22] = sub_group_non_uniform_scan_inclusive_or(x);
    o[23] = sub_group_non_uniform_reduce_xor(x);
#endif
  }
}
)";
  return source.str();
}

/// The uint results of the vote, ballot and id functions for work-item g, at out[g * 24 + k].
constexpr size_t kVoteOutputs = 24;

std::string votesSource(unsigned requiredSize) {
  std::ostringstream source;
  source << requiredSizeAttribute(requiredSize);
  source << R"(
kernel void votes(global const int *in, global uint *out, local int *exchange) {
  size_t g = get_global_id(0);
  int x = in[g];
  int taking = (x & 1) != 0;
  uint lane = get_sub_group_local_id(), size = get_sub_group_size();
  global uint *o = out + g * 24;
  o[0] = lane | (get_sub_group_id() << 8) | (size << 16) | (get_max_sub_group_size() << 24);
  o[1] = get_num_sub_groups() | (get_enqueued_num_sub_groups() << 16);
  o[2] = sub_group_all(taking);
  o[3] = sub_group_any(x > 40);
  uint4 b = sub_group_ballot(taking);
  o[4] = b.x;
  o[5] = b.y;
  o[6] = sub_group_inverse_ballot(b);
  o[7] = sub_group_ballot_bit_count(b);
  o[8] = sub_group_ballot_inclusive_scan(b);
  o[9] = sub_group_ballot_exclusive_scan(b);
  o[10] = sub_group_any(taking) ? sub_group_ballot_find_lsb(b) : 99;
  o[11] = sub_group_any(taking) ? sub_group_ballot_find_msb(b) : 99;
  o[12] = get_sub_group_eq_mask().x;
  o[13] = get_sub_group_ge_mask().x;
  o[14] = get_sub_group_gt_mask().x;
  o[15] = get_sub_group_le_mask().x;
  o[16] = get_sub_group_lt_mask().x;
  o[17] = get_sub_group_ge_mask().y;
  o[18] = sub_group_ballot_bit_extract(b, 2);
  if (taking) {
    o[19] = sub_group_elect();
    o[20] = sub_group_non_uniform_all(x > 0);
    o[21] = sub_group_non_uniform_any(x > 40);
    o[22] = sub_group_non_uniform_reduce_logical_xor(x > 20);
  }
  // The sub-group barrier orders the sub-group's local memory accesses.
  size_t item = get_local_id(0);
  exchange[item] = x;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  o[23] = exchange[item - lane + (lane + 1) % size];
}
)";
  return source.str();
}

/// A sub-group size to require (0: none, the device's choice).
class SubGroupTest : public ClTest, public ::testing::WithParamInterface<unsigned> {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS) == 0)
      GTEST_SKIP() << "the device has no sub-groups";
    if (GetParam() != 0) {
      std::vector<size_t> sizes = deviceArray<size_t>(device_, CL_DEVICE_SUB_GROUP_SIZES_INTEL);
      if (std::find(sizes.begin(), sizes.end(), GetParam()) == sizes.end())
        GTEST_SKIP() << "the device does not offer sub-groups of " << GetParam();
    }
  }

  size_t widthOf(cl_kernel kernel, size_t local) { return subGroupWidth(kernel, device_, local); }

  /// Local sizes to run: multiples of the width and not, within the kernel's limit. Each is a
  /// compile of its own on the CPU (and one more for the NDRange's smaller last group), which at
  /// 32 and 64 lanes takes seconds: one size fewer there.
  std::vector<size_t> localSizes(cl_kernel kernel, size_t width) {
    size_t most = workGroupInfo<size_t>(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE);
    std::vector<size_t> sizes;
    std::vector<size_t> wanted = {4 * width, 3 * width + std::max<size_t>(1, width / 2), 7};
    if (width >= 32)
      wanted = {2 * width, 7};
    for (size_t size : wanted)
      if (size <= std::min<size_t>(most, 256) &&
          std::find(sizes.begin(), sizes.end(), size) == sizes.end())
        sizes.push_back(size);
    return sizes;
  }

  void checkCollectives(const ElementType &type);
};

/// The inputs of the collectives: small integers (every sum and product of the floating-point
/// ones is exact in any order), one work-group of equal values for all_equal.
std::vector<Value> collectiveInputs(const ElementType &type, size_t count, size_t local) {
  Random random(count * 31 + type.bytes);
  std::vector<Value> values(count);
  for (size_t index = 0; index < count; ++index) {
    int64_t v;
    if (type.isFloat) {
      static const int64_t kFactors[] = {-2, -1, 1, 2, -1, 1, 2, -2};
      v = kFactors[random.next() % 8];
    } else {
      v = static_cast<int64_t>(random.next() % 200) - (type.isSigned ? 100 : 0);
    }
    if (index / local == 1)
      v = 1; // a work-group whose values are all equal (and odd: every work-item takes part)
    values[index] = {v, double(v)};
  }
  return values;
}

void SubGroupTest::checkCollectives(const ElementType &type) {
  if (type.isFloat && type.bytes == 8 && !hasExtension(device_, "cl_khr_fp64"))
    GTEST_SKIP() << "no double";
  // Every type runs at the sizes up to 16; the widest (whose compiles take seconds on the CPU)
  // with a 32-bit integer and a float, whose code paths the other types share.
  if (GetParam() >= 32 && std::string(type.name) != "int" && std::string(type.name) != "float")
    GTEST_SKIP() << "the widest sizes run with int and float";
  Kernel kernel = buildKernel(collectivesSource(type, GetParam()), "collectives", kOptions);
  ASSERT_TRUE(kernel);
  Arithmetic arithmetic(type);
  for (size_t local : localSizes(kernel, widthOf(kernel, 64))) {
    size_t width = widthOf(kernel, local);
    if (GetParam() != 0)
      ASSERT_EQ(GetParam(), width);
    size_t global = local * 3 + local / 2 + 1; // the last work-group is smaller
    std::vector<Value> inputs = collectiveInputs(type, global, local);
    std::vector<std::byte> inBytes(global * type.bytes);
    for (size_t index = 0; index < global; ++index)
      arithmetic.store(inputs[index], &inBytes[index * type.bytes]);
    std::vector<std::byte> outBytes(global * kOutputs * type.bytes);
    for (size_t index = 0; index < global * kOutputs; ++index)
      arithmetic.store({kSentinel, kSentinel}, &outBytes[index * type.bytes]);
    Mem in = bufferWith(inBytes);
    Mem out = bufferWith(outBytes);
    ASSERT_TRUE(setArgs(kernel, in, out));
    ASSERT_TRUE(run1D(kernel, global, local));
    outBytes = read<std::byte>(out, outBytes.size());

    auto expect = [&](size_t item, size_t output, Value want, const char *what) {
      Value got = arithmetic.load(&outBytes[(item * kOutputs + output) * type.bytes]);
      EXPECT_TRUE(arithmetic.equal(want, got))
          << type.name << " " << what << " (output " << output << ") of global id " << item
          << " with sub-groups of " << width << ", work-groups of " << local << ": got "
          << arithmetic.show(got) << ", want " << arithmetic.show(want);
    };
    size_t cluster = std::min<size_t>(4, width);
    for (const SubGroup &sub : subGroupsOf(global, local, width)) {
      auto at = [&](size_t lane) { return inputs[sub.first + lane]; };
      auto taking = [&](size_t lane) { return (at(lane).bits & 1) != 0; };
      auto fold = [&](auto op, Value identity, auto include) {
        Value result = identity;
        for (size_t lane = 0; lane < sub.size; ++lane)
          if (include(lane))
            result = op(result, at(lane));
        return result;
      };
      auto all = [](size_t) { return true; };
      using A = Arithmetic;
      auto add = std::bind_front(&A::add, arithmetic);
      auto mn = std::bind_front(&A::min, arithmetic);
      auto mx = std::bind_front(&A::max, arithmetic);
      size_t firstTaking = sub.size;
      for (size_t lane = sub.size; lane-- > 0;)
        if (taking(lane))
          firstTaking = lane;
      for (size_t lane = 0; lane < sub.size; ++lane) {
        size_t item = sub.first + lane;
        expect(item, 0, fold(add, arithmetic.zero(), all), "sub_group_reduce_add");
        expect(item, 1, fold(mn, arithmetic.highest(), all), "sub_group_reduce_min");
        expect(item, 2, fold(mx, arithmetic.lowest(), all), "sub_group_reduce_max");
        expect(item, 3, fold(add, arithmetic.zero(), [&](size_t l) { return l <= lane; }),
               "sub_group_scan_inclusive_add");
        expect(item, 4, fold(mn, arithmetic.highest(), [&](size_t l) { return l < lane; }),
               "sub_group_scan_exclusive_min");
        expect(item, 5, fold(mx, arithmetic.lowest(), [&](size_t l) { return l < lane; }),
               "sub_group_scan_exclusive_max");
        expect(item, 6, at(sub.size - 1), "sub_group_broadcast");
        expect(item, 7, at((lane * 5 + 3) % sub.size), "sub_group_shuffle");
        if ((lane ^ 1) < sub.size)
          expect(item, 8, at(lane ^ 1), "sub_group_shuffle_xor");
        if (lane >= 1)
          expect(item, 9, at(lane - 1), "sub_group_shuffle_up");
        if (lane + 1 < sub.size)
          expect(item, 10, at(lane + 1), "sub_group_shuffle_down");
        if ((lane + 3) % width < sub.size)
          expect(item, 11, at((lane + 3) % width), "sub_group_rotate");
        size_t clusterFirst = lane / cluster * cluster;
        expect(item, 12,
               fold(add, arithmetic.zero(),
                    [&](size_t l) { return l >= clusterFirst && l < clusterFirst + cluster; }),
               "sub_group_clustered_reduce_add");
        size_t rotated = clusterFirst + (lane + 1) % cluster;
        if (rotated < sub.size)
          expect(item, 13, at(rotated), "sub_group_clustered_rotate");
        if (!taking(lane)) {
          for (size_t output = 14; output < kOutputs; ++output)
            expect(item, output, {kSentinel, kSentinel},
                   "a result where the work-item took no part");
          continue;
        }
        auto takingUpTo = [&](size_t end) {
          return [&, end](size_t l) { return taking(l) && l < end; };
        };
        expect(item, 14, fold(add, arithmetic.zero(), taking), "sub_group_non_uniform_reduce_add");
        expect(item, 15, fold(mx, arithmetic.lowest(), takingUpTo(lane + 1)),
               "sub_group_non_uniform_scan_inclusive_max");
        expect(item, 16, fold(add, arithmetic.zero(), takingUpTo(lane)),
               "sub_group_non_uniform_scan_exclusive_add");
        expect(item, 17, at(firstTaking), "sub_group_broadcast_first");
        expect(item, 18, fold(std::bind_front(&A::mul, arithmetic), arithmetic.one(), taking),
               "sub_group_non_uniform_reduce_mul");
        bool equal = true;
        for (size_t l = 0; l < sub.size; ++l)
          equal = equal && (!taking(l) || arithmetic.equal(at(l), at(firstTaking)));
        expect(item, 19, equal ? arithmetic.one() : arithmetic.zero(),
               "sub_group_non_uniform_all_equal");
        expect(item, 20, fold(mn, arithmetic.highest(), takingUpTo(lane + 1)),
               "sub_group_non_uniform_scan_inclusive_min");
        if (type.isFloat)
          continue;
        expect(item, 21,
               fold(std::bind_front(&A::bitAnd, arithmetic), arithmetic.allOnes(), taking),
               "sub_group_non_uniform_reduce_and");
        expect(
            item, 22,
            fold(std::bind_front(&A::bitOr, arithmetic), arithmetic.zero(), takingUpTo(lane + 1)),
            "sub_group_non_uniform_scan_inclusive_or");
        expect(item, 23, fold(std::bind_front(&A::bitXor, arithmetic), arithmetic.zero(), taking),
               "sub_group_non_uniform_reduce_xor");
      }
    }
    if (HasFailure())
      return;
  }
}

#define KILN_COLLECTIVES_TEST(TYPE, INDEX)                                                         \
  TEST_P(SubGroupTest, Collectives_##TYPE) {                                                       \
    checkCollectives(kTypes[INDEX]);                                                               \
  }
KILN_COLLECTIVES_TEST(char, 0)
KILN_COLLECTIVES_TEST(uchar, 1)
KILN_COLLECTIVES_TEST(short, 2)
KILN_COLLECTIVES_TEST(ushort, 3)
KILN_COLLECTIVES_TEST(int, 4)
KILN_COLLECTIVES_TEST(uint, 5)
KILN_COLLECTIVES_TEST(long, 6)
KILN_COLLECTIVES_TEST(ulong, 7)
KILN_COLLECTIVES_TEST(float, 8)
KILN_COLLECTIVES_TEST(double, 9)

TEST_P(SubGroupTest, VotesBallotsAndIds) {
  Kernel kernel = buildKernel(votesSource(GetParam()), "votes", kOptions);
  ASSERT_TRUE(kernel);
  for (size_t local : localSizes(kernel, widthOf(kernel, 64))) {
    size_t width = widthOf(kernel, local);
    size_t count = 0;
    ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_,
                                              CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local,
                                              &local, sizeof count, &count, nullptr));
    EXPECT_EQ((local + width - 1) / width, count);
    size_t global = local * 2 + local / 3 + 1;
    Random random(global);
    std::vector<cl_int> inputs(global);
    for (cl_int &value : inputs)
      value = static_cast<cl_int>(random.next() % 50);
    Mem in = bufferWith(inputs);
    Mem out = bufferWith(std::vector<cl_uint>(global * kVoteOutputs, kSentinel));
    ASSERT_TRUE(setArgs(kernel, in, out, LocalSize{local * sizeof(cl_int)}));
    ASSERT_TRUE(run1D(kernel, global, local));
    std::vector<cl_uint> results = read<cl_uint>(out, global * kVoteOutputs);
    for (const SubGroup &sub : subGroupsOf(global, local, width)) {
      auto at = [&](size_t lane) { return inputs[sub.first + lane]; };
      auto taking = [&](size_t lane) { return (at(lane) & 1) != 0; };
      uint64_t ballot = 0;
      for (size_t lane = 0; lane < sub.size; ++lane)
        ballot |= uint64_t(taking(lane)) << lane;
      auto lanesBelow = [](size_t n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; };
      bool anyOver40 = false, allPositive = true, oddCountOver20 = false;
      for (size_t lane = 0; lane < sub.size; ++lane) {
        anyOver40 = anyOver40 || at(lane) > 40;
        if (taking(lane)) {
          allPositive = allPositive && at(lane) > 0;
          oddCountOver20 = oddCountOver20 != (at(lane) > 20);
        }
      }
      bool anyTakingOver40 = false;
      for (size_t lane = 0; lane < sub.size; ++lane)
        anyTakingOver40 = anyTakingOver40 || (taking(lane) && at(lane) > 40);
      size_t items = std::min(local, global - sub.groupFirst);
      size_t subGroupId = (sub.first - sub.groupFirst) / width;
      for (size_t lane = 0; lane < sub.size; ++lane) {
        size_t item = sub.first + lane;
        const cl_uint *got = &results[item * kVoteOutputs];
        std::vector<cl_uint> want(kVoteOutputs, kSentinel);
        want[0] = cl_uint(lane | (subGroupId << 8) | (sub.size << 16) | (width << 24));
        want[1] = cl_uint((items + width - 1) / width | ((local + width - 1) / width) << 16);
        want[2] = ballot == lanesBelow(sub.size);
        want[3] = anyOver40;
        want[4] = cl_uint(ballot);
        want[5] = cl_uint(ballot >> 32);
        want[6] = taking(lane);
        want[7] = cl_uint(std::popcount(ballot));
        want[8] = cl_uint(std::popcount(ballot & lanesBelow(lane + 1)));
        want[9] = cl_uint(std::popcount(ballot & lanesBelow(lane)));
        want[10] = ballot ? cl_uint(std::countr_zero(ballot)) : 99;
        want[11] = ballot ? cl_uint(63 - std::countl_zero(ballot)) : 99;
        uint64_t all = lanesBelow(width);
        want[12] = cl_uint(uint64_t(1) << lane);
        want[13] = cl_uint(all & ~lanesBelow(lane));
        want[14] = cl_uint(all & ~lanesBelow(lane + 1));
        want[15] = cl_uint(lanesBelow(lane + 1));
        want[16] = cl_uint(lanesBelow(lane));
        want[17] = cl_uint((all & ~lanesBelow(lane)) >> 32);
        want[18] = (ballot >> 2) & 1;
        if (taking(lane)) {
          want[19] = lane == size_t(std::countr_zero(ballot));
          want[20] = allPositive;
          want[21] = anyTakingOver40;
          want[22] = oddCountOver20;
        }
        want[23] = cl_uint(at((lane + 1) % sub.size));
        const char *names[] = {"ids",
                               "counts",
                               "all",
                               "any",
                               "ballot.x",
                               "ballot.y",
                               "inverse_ballot",
                               "bit_count",
                               "inclusive_scan",
                               "exclusive_scan",
                               "find_lsb",
                               "find_msb",
                               "eq_mask",
                               "ge_mask",
                               "gt_mask",
                               "le_mask",
                               "lt_mask",
                               "ge_mask.y",
                               "bit_extract",
                               "elect",
                               "non_uniform_all",
                               "non_uniform_any",
                               "logical_xor",
                               "barrier exchange"};
        for (size_t output = 0; output < kVoteOutputs; ++output)
          EXPECT_EQ(want[output], got[output])
              << names[output] << " of global id " << item << " with sub-groups of " << width
              << ", work-groups of " << local;
        if (HasFailure())
          return;
      }
    }
  }
}

/// cl_intel_subgroups: the shuffles across two values, and block reads and writes of every
/// element size on buffers.
TEST_P(SubGroupTest, IntelShufflesAndBlockIo) {
  if (!hasExtension(device_, "cl_intel_subgroups"))
    GTEST_SKIP();
  std::ostringstream source;
  source << requiredSizeAttribute(GetParam());
  source << R"(
kernel void intel(global const uint *in, global uint *out, global const ushort *in16,
                  global ushort *out16, global const uchar *in8, global uchar *out8,
                  global const ulong *in64, global ulong *out64) {
  size_t g = get_global_id(0);
  uint width = get_max_sub_group_size();
  size_t block = g - get_sub_group_local_id(); // the sub-group's first global id
  uint x = in[g];
  uint delta = min(3u, width - 1);
  out[4 * g + 0] = intel_sub_group_shuffle(x, 2 % width);
  out[4 * g + 1] = intel_sub_group_shuffle_down(x, x + 1000, delta);
  out[4 * g + 2] = intel_sub_group_shuffle_up(x + 1000, x, delta);
  out[4 * g + 3] = intel_sub_group_shuffle_xor(x, width - 1);
  // Each sub-group reads and writes two blocks of `width` elements at 2 * block.
  uint2 words = intel_sub_group_block_read2(in + 2 * block);
  intel_sub_group_block_write2(out + 4 * get_global_size(0) + 2 * block, words + 1);
  ushort2 halves = intel_sub_group_block_read_us2(in16 + 2 * block);
  intel_sub_group_block_write_us2(out16 + 2 * block, halves + (ushort)1);
  uchar2 bytes = intel_sub_group_block_read_uc2(in8 + 2 * block);
  intel_sub_group_block_write_uc2(out8 + 2 * block, bytes + (uchar)1);
  ulong2 longs = intel_sub_group_block_read_ul2(in64 + 2 * block);
  intel_sub_group_block_write_ul2(out64 + 2 * block, longs + 1);
}
)";
  Kernel kernel = buildKernel(source.str(), "intel", kOptions);
  ASSERT_TRUE(kernel);
  size_t width = widthOf(kernel, 64);
  size_t local = 4 * width, global = 3 * local;
  std::vector<cl_uint> inputs(2 * global);
  for (size_t index = 0; index < inputs.size(); ++index)
    inputs[index] = cl_uint(index * 2654435761u >> 7);
  std::vector<cl_ushort> in16(inputs.begin(), inputs.end());
  std::vector<cl_uchar> in8(inputs.begin(), inputs.end());
  std::vector<cl_ulong> in64(inputs.begin(), inputs.end());
  for (cl_ulong &value : in64)
    value |= value << 40;
  Mem in = bufferWith(inputs);
  Mem out = bufferWith(std::vector<cl_uint>(6 * global, 0));
  Mem inShort = bufferWith(in16), outShort = bufferWith(std::vector<cl_ushort>(2 * global));
  Mem inByte = bufferWith(in8), outByte = bufferWith(std::vector<cl_uchar>(2 * global));
  Mem inLong = bufferWith(in64), outLong = bufferWith(std::vector<cl_ulong>(2 * global));
  ASSERT_TRUE(setArgs(kernel, in, out, inShort, outShort, inByte, outByte, inLong, outLong));
  ASSERT_TRUE(run1D(kernel, global, local));
  std::vector<cl_uint> results = read<cl_uint>(out, 6 * global);
  for (size_t g = 0; g < global; ++g) {
    size_t lane = g % width, first = g - lane;
    auto x = [&](size_t l) { return inputs[first + l]; };
    size_t delta = std::min<size_t>(3, width - 1);
    EXPECT_EQ(x(2 % width), results[4 * g]) << "intel_sub_group_shuffle at " << g;
    EXPECT_EQ(lane + delta < width ? x(lane + delta) : x(lane + delta - width) + 1000,
              results[4 * g + 1])
        << "intel_sub_group_shuffle_down at " << g;
    EXPECT_EQ(lane >= delta ? x(lane - delta) : x(lane + width - delta) + 1000, results[4 * g + 2])
        << "intel_sub_group_shuffle_up at " << g;
    EXPECT_EQ(x(lane ^ (width - 1)), results[4 * g + 3]) << "intel_sub_group_shuffle_xor at " << g;
    if (HasFailure())
      return;
  }
  // Block k of a sub-group: element k * width + lane of its span, which the block write puts
  // back in the same place: a copy plus one.
  for (size_t index = 0; index < 2 * global; ++index)
    EXPECT_EQ(inputs[index] + 1, results[4 * global + index]) << "block read/write at " << index;
  std::vector<cl_ushort> shorts = read<cl_ushort>(outShort, 2 * global);
  std::vector<cl_uchar> bytes = read<cl_uchar>(outByte, 2 * global);
  std::vector<cl_ulong> longs = read<cl_ulong>(outLong, 2 * global);
  for (size_t index = 0; index < 2 * global; ++index) {
    EXPECT_EQ(cl_ushort(in16[index] + 1), shorts[index]) << "ushort block at " << index;
    EXPECT_EQ(cl_uchar(in8[index] + 1), bytes[index]) << "uchar block at " << index;
    EXPECT_EQ(in64[index] + 1, longs[index]) << "ulong block at " << index;
    if (HasFailure())
      return;
  }
}

/// cl_intel_subgroups' block reads and writes of 2D images: rows of bytes, a block per row.
TEST_P(SubGroupTest, IntelImageBlockIo) {
  if (!hasExtension(device_, "cl_intel_subgroups") ||
      !deviceInfo<cl_bool>(device_, CL_DEVICE_IMAGE_SUPPORT))
    GTEST_SKIP();
  std::ostringstream source;
  source << requiredSizeAttribute(GetParam());
  source << R"(
kernel void image_blocks(read_only image2d_t in, write_only image2d_t out, global ushort *halves) {
  // Sub-group s of the row of work-groups reads two rows from row 2 * y, at byte 4 * width * s.
  int2 at = (int2)(4 * get_max_sub_group_size() * get_sub_group_id(), 2 * get_group_id(1));
  uint2 texels = intel_sub_group_block_read2(in, at);
  intel_sub_group_block_write2(out, at, texels + (uint2)(1, 2));
  // 16-bit elements: lane i reads bytes 2i and 2i + 1 of the block.
  halves[get_global_id(1) * get_global_size(0) + get_global_id(0)] =
      intel_sub_group_block_read_us(in, at);
}
)";
  Kernel kernel = buildKernel(source.str(), "image_blocks", kOptions);
  ASSERT_TRUE(kernel);
  size_t width = widthOf(kernel, 64);
  size_t columns = 4 * width, rows = 6; // RGBA8: one 32-bit texel per lane
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = columns;
  desc.image_height = rows;
  std::vector<cl_uint> texels(columns * rows);
  for (size_t index = 0; index < texels.size(); ++index)
    texels[index] = cl_uint(index * 2654435761u);
  cl_int error = CL_SUCCESS;
  Mem in(clCreateImage(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                       texels.data(), &error));
  ASSERT_CL_SUCCESS(error);
  Mem out(clCreateImage(context_, CL_MEM_WRITE_ONLY, &format, &desc, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Mem halves = createBuffer(CL_MEM_READ_WRITE, columns * rows / 2 * sizeof(cl_ushort));
  ASSERT_TRUE(setArgs(kernel, in, out, halves));
  size_t global[2] = {columns, rows / 2}, local[2] = {columns, 1};
  ASSERT_TRUE(run(kernel, 2, global, local));
  std::vector<cl_uint> results(columns * rows);
  size_t origin[3] = {0, 0, 0}, region[3] = {columns, rows, 1};
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, out, CL_TRUE, origin, region, 0, 0, results.data(),
                                       0, nullptr, nullptr));
  for (size_t row = 0; row < rows; ++row)
    for (size_t column = 0; column < columns; ++column) {
      size_t index = row * columns + column;
      ASSERT_EQ(texels[index] + (row % 2 == 0 ? 1 : 2), results[index])
          << "texel " << column << ", row " << row << " with sub-groups of " << width;
    }
  std::vector<cl_ushort> readHalves = read<cl_ushort>(halves, columns * rows / 2);
  for (size_t y = 0; y < rows / 2; ++y)
    for (size_t x = 0; x < columns; ++x) {
      size_t lane = x % width, first = x - lane; // the sub-group's first texel in the row
      cl_uint texel = texels[2 * y * columns + first + lane / 2];
      ASSERT_EQ(cl_ushort(texel >> (16 * (lane % 2))), readHalves[y * columns + x])
          << "16-bit block element of lane " << lane << ", work-item " << x << ", " << y;
    }
}

/// Two-dimensional work-groups: sub-groups follow the linear local id, whether or not the rows
/// split into whole sub-groups.
TEST_P(SubGroupTest, TwoDimensionalGroups) {
  std::ostringstream source;
  source << requiredSizeAttribute(GetParam());
  source << R"(
kernel void plane(global const int *in, global int *out) {
  size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);
  int x = in[g];
  out[3 * g] = sub_group_reduce_add(x);
  out[3 * g + 1] = sub_group_scan_exclusive_add(x);
  out[3 * g + 2] = (int)(get_sub_group_local_id() | (get_sub_group_id() << 16));
}
)";
  Kernel kernel = buildKernel(source.str(), "plane", kOptions);
  ASSERT_TRUE(kernel);
  size_t width = widthOf(kernel, 64);
  for (size_t rowLength : {2 * width, width / 2 + 1}) {
    size_t local[2] = {rowLength, 3};
    size_t global[2] = {2 * rowLength, 6};
    size_t count = global[0] * global[1];
    std::vector<cl_int> inputs(count);
    for (size_t index = 0; index < count; ++index)
      inputs[index] = cl_int(index * 7 % 23);
    Mem in = bufferWith(inputs);
    Mem out = bufferWith(std::vector<cl_int>(3 * count));
    ASSERT_TRUE(setArgs(kernel, in, out));
    ASSERT_TRUE(run(kernel, 2, global, local));
    std::vector<cl_int> results = read<cl_int>(out, 3 * count);
    for (size_t gy = 0; gy < global[1]; gy += local[1])
      for (size_t gx = 0; gx < global[0]; gx += local[0]) {
        // The group's items in linear local id order.
        std::vector<size_t> items;
        for (size_t y = 0; y < local[1]; ++y)
          for (size_t x = 0; x < local[0]; ++x)
            items.push_back((gy + y) * global[0] + gx + x);
        for (size_t linear = 0; linear < items.size(); ++linear) {
          size_t first = linear / width * width;
          size_t last = std::min(first + width, items.size());
          cl_int sum = 0, before = 0;
          for (size_t other = first; other < last; ++other) {
            sum += inputs[items[other]];
            if (other < linear)
              before += inputs[items[other]];
          }
          size_t item = items[linear];
          EXPECT_EQ(sum, results[3 * item])
              << "reduce at linear id " << linear << ", rows of " << rowLength;
          EXPECT_EQ(before, results[3 * item + 1]) << "scan at linear id " << linear;
          EXPECT_EQ(cl_int((linear % width) | (linear / width) << 16), results[3 * item + 2])
              << "ids at linear id " << linear;
          if (HasFailure())
            return;
        }
      }
  }
}

// The odd lanes of each sub-group count themselves with a ballot, cap the count by a value read
// from memory and loop that many times: values the same in every lane, loaded and computed
// where only some lanes run.
TEST_P(SubGroupTest, UniformValuesInDivergentCode) {
  std::ostringstream source;
  source << requiredSizeAttribute(GetParam());
  source << R"(
kernel void capped(global const uint *limit, global uint *out) {
  uint result = 0;
  if (get_sub_group_local_id() & 1) {
    uint4 lanes = sub_group_ballot(1);
    uint callers = popcount(lanes.x) + popcount(lanes.y);
    uint steps = min(callers, limit[0]);
    for (uint i = 0; i < steps; ++i)
      result += i + 1;
  }
  out[get_global_id(0)] = result;
}
)";
  Kernel kernel = buildKernel(source.str(), "capped", kOptions);
  ASSERT_TRUE(kernel);
  for (size_t local : localSizes(kernel, widthOf(kernel, 64))) {
    size_t width = widthOf(kernel, local);
    size_t global = 2 * local;
    for (cl_uint limit : {cl_uint(3), cl_uint(100)}) {
      Mem limits = bufferWith(std::vector<cl_uint>{limit});
      Mem out = bufferWith(std::vector<cl_uint>(global));
      ASSERT_TRUE(setArgs(kernel, limits, out));
      ASSERT_TRUE(run1D(kernel, global, local));
      std::vector<cl_uint> results = read<cl_uint>(out, global);
      for (size_t item = 0; item < global; ++item) {
        size_t inGroup = item % local, first = inGroup / width * width;
        size_t lanes = std::min(width, local - first);
        cl_uint steps = std::min<cl_uint>(cl_uint(lanes / 2), limit);
        cl_uint expected = (inGroup - first) % 2 == 1 ? steps * (steps + 1) / 2 : 0;
        ASSERT_EQ(expected, results[item])
            << "work-item " << item << ", groups of " << local << ", limit " << limit;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RequiredSizes, SubGroupTest, ::testing::Values(0u, 4u, 8u, 16u, 32u, 64u),
                         [](const ::testing::TestParamInfo<unsigned> &info) {
                           return info.param == 0 ? std::string("DeviceChoice")
                                                  : "Size" + std::to_string(info.param);
                         });

// ---------------------------------------------------------------------------------------------
// Queries and errors

class SubGroupQueryTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS) == 0)
      GTEST_SKIP() << "the device has no sub-groups";
  }

  /// Runs `kernel(in, out)` over `in.size()` work-items in groups of `local`, each writing
  /// `outputsPerItem` uints; returns them.
  std::vector<cl_uint> runOnUints(cl_kernel kernel, const std::vector<cl_uint> &in,
                                  size_t outputsPerItem, size_t local) {
    Mem input = createBuffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * sizeof(cl_uint),
                             const_cast<cl_uint *>(in.data()));
    Mem out = createBuffer(CL_MEM_READ_WRITE, outputsPerItem * in.size() * sizeof(cl_uint));
    EXPECT_TRUE(setArgs(kernel, input, out));
    EXPECT_TRUE(run1D(kernel, in.size(), local));
    return read<cl_uint>(out, outputsPerItem * in.size());
  }
};

TEST_F(SubGroupQueryTest, DeviceReportsItsSubGroups) {
  for (const char *name :
       {"cl_khr_subgroup_extended_types", "cl_khr_subgroup_non_uniform_vote",
        "cl_khr_subgroup_ballot", "cl_khr_subgroup_non_uniform_arithmetic",
        "cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle_relative",
        "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_rotate",
        "cl_intel_required_subgroup_size", "cl_intel_subgroups", "cl_intel_subgroups_char",
        "cl_intel_subgroups_short", "cl_intel_subgroups_long"})
    EXPECT_TRUE(hasExtension(device_, name)) << name;
  std::vector<size_t> sizes = deviceArray<size_t>(device_, CL_DEVICE_SUB_GROUP_SIZES_INTEL);
  ASSERT_FALSE(sizes.empty());
  size_t most = deviceInfo<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS), most / sizes.front());
  cl_device_type type = deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE);
  // The extension cl_khr_subgroups promises independent forward progress; OpenCL 3.0's
  // sub-groups do not.
  bool progress =
      deviceInfo<cl_bool>(device_, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS) == CL_TRUE;
  EXPECT_TRUE(progress);
  EXPECT_TRUE(hasExtension(device_, "cl_khr_subgroups"));
  if (type & CL_DEVICE_TYPE_CPU) {
    EXPECT_EQ((std::vector<size_t>{4, 8, 16, 32, 64}), sizes);
  } else {
    EXPECT_EQ((std::vector<size_t>{8, 16, 32}), sizes);
  }
  EXPECT_TRUE(hasOpenClCFeature(device_, "__opencl_c_subgroups"));
}

TEST_F(SubGroupQueryTest, KernelQueriesAnswerWhatTheKernelSees) {
  const char *source = R"(
__attribute__((intel_reqd_sub_group_size(8)))
kernel void sized(global uint *out) {
  out[get_global_id(0)] = get_max_sub_group_size() | (get_num_sub_groups() << 16);
}
kernel void free(global uint *out) {
  out[get_global_id(0)] = get_max_sub_group_size() | (get_num_sub_groups() << 16);
}
)";
  Program program = build(source, kOptions);
  ASSERT_TRUE(program);
  for (const char *name : {"sized", "free"}) {
    cl_int error = CL_SUCCESS;
    Kernel kernel(clCreateKernel(program, name, &error));
    ASSERT_CL_SUCCESS(error);
    size_t required = 99;
    ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_,
                                              CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, nullptr,
                                              sizeof required, &required, nullptr));
    EXPECT_EQ(std::string(name) == "sized" ? 8u : 0u, required);
    for (size_t local : {size_t{1}, size_t{20}, size_t{64}}) {
      size_t width = 0, count = 0;
      ASSERT_CL_SUCCESS(
          clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                  sizeof local, &local, sizeof width, &width, nullptr));
      ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_,
                                                CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local,
                                                &local, sizeof count, &count, nullptr));
      Mem out = createBuffer(CL_MEM_READ_WRITE, local * sizeof(cl_uint));
      ASSERT_TRUE(setArgs(kernel, out));
      ASSERT_TRUE(run1D(kernel, local, local));
      std::vector<cl_uint> seen = read<cl_uint>(out, local);
      for (cl_uint value : seen)
        ASSERT_EQ(cl_uint(width | count << 16), value) << name << " with work-groups of " << local;
    }
    // A local size for a number of sub-groups, in 1 to 3 dimensions.
    size_t width = 0, local = 64;
    ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_,
                                              CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                              sizeof local, &local, sizeof width, &width, nullptr));
    size_t subGroups = 3, sizes[3] = {};
    ASSERT_CL_SUCCESS(
        clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                sizeof subGroups, &subGroups, sizeof sizes, sizes, nullptr));
    EXPECT_EQ(3 * width, sizes[0]);
    EXPECT_EQ(1u, sizes[1]);
    EXPECT_EQ(1u, sizes[2]);
    size_t most = workGroupInfo<size_t>(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE);
    size_t tooMany = most + 1;
    ASSERT_CL_SUCCESS(
        clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                sizeof tooMany, &tooMany, sizeof sizes, sizes, nullptr));
    EXPECT_EQ(0u, sizes[0]);
    size_t maxCount = 0;
    ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                              nullptr, sizeof maxCount, &maxCount, nullptr));
    EXPECT_EQ((most + width - 1) / width, maxCount);
    size_t compiled = 99;
    ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0,
                                              nullptr, sizeof compiled, &compiled, nullptr));
    EXPECT_EQ(0u, compiled);
  }
}

TEST_F(SubGroupQueryTest, BadQueriesAreErrors) {
  Kernel kernel =
      buildKernel("kernel void k(global int *p) { p[0] = get_sub_group_size(); }", "k", kOptions);
  ASSERT_TRUE(kernel);
  size_t value = 0, local = 16;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                          sizeof local, nullptr, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 5,
                                          &local, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                          sizeof local, &local, 1, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelSubGroupInfo(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof local,
                                          &local, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL,
                  clGetKernelSubGroupInfo(nullptr, device_, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                          nullptr, sizeof value, &value, nullptr));
  // Through the extension's own entry point too.
  auto khr = reinterpret_cast<clGetKernelSubGroupInfoKHR_fn>(
      clGetExtensionFunctionAddressForPlatform(platform_, "clGetKernelSubGroupInfoKHR"));
  ASSERT_NE(nullptr, khr);
  EXPECT_CL_SUCCESS(khr(kernel, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                        &local, sizeof value, &value, nullptr));
  EXPECT_GE(value, 1u);
}

TEST_F(SubGroupQueryTest, UnofferedRequiredSizeFailsTheBuildWithTheOfferedSizes) {
  for (int size : {3, 2, 128}) {
    std::string source = "__attribute__((intel_reqd_sub_group_size(" + std::to_string(size) +
                         "))) kernel void k(global int *p) { p[0] = get_sub_group_size(); }";
    BuildResult result = tryBuild(context_, device_, source, kOptions);
    EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, result.error) << size;
    EXPECT_NE(std::string::npos, result.log.find("intel_reqd_sub_group_size")) << result.log;
    std::string offered;
    for (size_t offeredSize : deviceArray<size_t>(device_, CL_DEVICE_SUB_GROUP_SIZES_INTEL))
      offered += (offered.empty() ? "" : ", ") + std::to_string(offeredSize);
    EXPECT_NE(std::string::npos, result.log.find("offers " + offered)) << result.log;
  }
}

// A program built without -cl-std is OpenCL C 1.2 on Kiln's devices; the sub-group extensions
// the device lists are there for it too (Clang offers them from OpenCL C 2.0 only).
TEST_F(SubGroupQueryTest, OpenCLC12ProgramsUseTheListedSubGroupExtensions) {
  const char *source = R"(
#if !defined(cl_khr_subgroup_shuffle) || !defined(cl_khr_subgroup_shuffle_relative) || \
    !defined(cl_khr_subgroup_ballot) || __OPENCL_C_VERSION__ != 120
#error the sub-group extensions are missing
#endif
kernel void k(global const uint *in, global uint *out) {
  size_t g = get_global_id(0);
  uint x = in[g], lane = get_sub_group_local_id(), size = get_sub_group_size();
  out[4 * g] = sub_group_shuffle_up(x, 1u) * (lane >= 1) + sub_group_shuffle(x, 0u);
  out[4 * g + 1] = sub_group_reduce_add(x);
  out[4 * g + 2] = sub_group_ballot_bit_count(sub_group_ballot(x & 1));
  out[4 * g + 3] = sub_group_scan_exclusive_max(x) + (get_sub_group_id() << 24);
}
)";
  Kernel kernel = buildKernel(source, "k");
  ASSERT_TRUE(kernel);
  const size_t local = 40, global = 80;
  size_t width = subGroupWidth(kernel, device_, local);
  ASSERT_NE(0u, width);
  std::vector<cl_uint> in(global);
  for (size_t i = 0; i < global; ++i)
    in[i] = cl_uint(i * 7 % 23);
  std::vector<cl_uint> seen = runOnUints(kernel, in, 4, local);
  ASSERT_EQ(4 * global, seen.size());
  for (size_t g = 0; g < global; ++g) {
    size_t item = g % local, group = item / width, lane = item % width;
    size_t first = g - lane, size = std::min(width, local - group * width);
    cl_uint sum = 0, odd = 0, before = 0;
    for (size_t i = first; i < first + size; ++i) {
      sum += in[i];
      odd += in[i] & 1;
      if (i < g)
        before = std::max(before, in[i]);
    }
    ASSERT_EQ((lane >= 1 ? in[g - 1] : 0) + in[first], seen[4 * g]) << g;
    ASSERT_EQ(sum, seen[4 * g + 1]) << g;
    ASSERT_EQ(odd, seen[4 * g + 2]) << g;
    ASSERT_EQ(before + (cl_uint(group) << 24), seen[4 * g + 3]) << g;
  }
}

// A program that reaches the extensions' sub-group functions without spelling their names in
// its source (pasted tokens, a header on disk) still finds them, and a failing program's log
// reports each error once.
TEST_F(SubGroupQueryTest, SubGroupFunctionsAreFoundWhereverTheProgramNamesThem) {
  std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("kiln-sg-header-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "first_lane.h")
      << "uint first_lane(uint x) { return intel_sub_group_shuffle(x, 0u); }\n";
  const char *source = R"(
#define PASTE(a, b) a##b
#include "first_lane.h"
kernel void k(global const uint *in, global uint *out) {
  size_t g = get_global_id(0);
  out[2 * g] = first_lane(in[g]);
  out[2 * g + 1] = PASTE(intel_sub, _group_shuffle)(in[g], 0u) + PASTE(get_sub, _group_id)();
}
)";
  Kernel kernel = buildKernel(source, "k", "-I " + folder.string());
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(kernel);
  const size_t local = 32, global = 64;
  size_t width = subGroupWidth(kernel, device_, local);
  ASSERT_NE(0u, width);
  std::vector<cl_uint> in(global);
  for (size_t i = 0; i < global; ++i)
    in[i] = cl_uint(i * 5 + 3);
  std::vector<cl_uint> seen = runOnUints(kernel, in, 2, local);
  ASSERT_EQ(2 * global, seen.size());
  for (size_t g = 0; g < global; ++g) {
    size_t item = g % local, first = g - item % width;
    ASSERT_EQ(in[first], seen[2 * g]) << g;
    ASSERT_EQ(in[first] + item / width, seen[2 * g + 1]) << g;
  }

  BuildResult failed =
      tryBuild(context_, device_, "kernel void k(global int *p) { p[0] = missing_value; }");
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, failed.error);
  size_t first = failed.log.find("missing_value");
  ASSERT_NE(std::string::npos, first) << failed.log;
  EXPECT_EQ(std::string::npos, failed.log.find("undeclared", failed.log.find("undeclared") + 1))
      << failed.log;
}

TEST_F(SubGroupQueryTest, SpillMemoryIsReported) {
  Kernel lean = buildKernel("kernel void k(global int *p) { p[0] = 1; }", "k");
  ASSERT_TRUE(lean);
  cl_ulong spill = 99;
  EXPECT_CL_SUCCESS(clGetKernelWorkGroupInfo(lean, device_, CL_KERNEL_SPILL_MEM_SIZE_INTEL,
                                             sizeof spill, &spill, nullptr));
  EXPECT_EQ(0u, spill);
  // A private array indexed by data lives in memory, not in registers.
  Kernel heavy = buildKernel(R"(
    kernel void k(global const int *in, global float *out) {
      float values[256];
      for (int i = 0; i < 256; ++i)
        values[i] = in[i] * 0.5f;
      out[get_global_id(0)] = values[in[get_global_id(0)] & 255];
    })",
                             "k");
  ASSERT_TRUE(heavy);
  EXPECT_CL_SUCCESS(clGetKernelWorkGroupInfo(heavy, device_, CL_KERNEL_SPILL_MEM_SIZE_INTEL,
                                             sizeof spill, &spill, nullptr));
  // How much of it stays in memory is the optimizer's choice (with the vectorizer off some of
  // it lives in registers); none of it would be a false 0.
  EXPECT_GT(spill, 0u);
}

} // namespace
