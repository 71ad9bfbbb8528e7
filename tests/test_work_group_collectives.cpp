// Work-group collective functions (OpenCL C 3.0 feature
// __opencl_c_work_group_collective_functions): work_group_all, _any, _broadcast (1-, 2- and 3-D
// forms), and the reductions and scans of add, min and max on every type OpenCL C names for
// them. One kernel calls every collective of a type in a row; it runs in 1-, 2- and 3-D
// work-groups whose sizes are and are not multiples of the sub-group size, up to the device's
// largest, and on non-uniform ND-ranges, and every result is checked against a host reference
// that orders each work-group's work-items by linear local id as the specification does. CI runs
// the suite again with KILN_VECTORIZE=0, where the CPU's sub-groups are single work-items.
#include "cl_test.hpp"

#include <array>
#include <cstring>
#include <limits>
#include <sstream>

using namespace cltest;

namespace {

/// The collectives are OpenCL C 2.0 and 3.0 functions.
constexpr const char *kOpenCLC30 = "-cl-std=CL3.0";

/// The collectives' element types, and how the host computes with each.
struct CollectiveType {
  const char *name;
  bool isFloat;
  bool isSigned;
  size_t bytes;
};

constexpr CollectiveType kCollectiveTypes[] = {
    {"int", false, true, 4},    {"uint", false, false, 4}, {"long", false, true, 8},
    {"ulong", false, false, 8}, {"float", true, true, 4},  {"double", true, true, 8},
};

/// The results the kernel writes per work-item, in this order.
constexpr const char *kOperations[] = {
    "reduce_add",         "reduce_min",         "reduce_max",
    "scan_inclusive_add", "scan_inclusive_min", "scan_inclusive_max",
    "scan_exclusive_add", "scan_exclusive_min", "scan_exclusive_max",
};
constexpr size_t kOperationCount = std::size(kOperations);

/// Every collective on T, one after another in one kernel; then broadcast from the middle
/// work-item of the group in each form, and all and any.
std::string collectivesSource(const CollectiveType &type) {
  std::ostringstream source;
  source << "#define T " << type.name << "\n";
  source << R"(
size_t linear_global_id(void) {
  return get_global_id(0) + get_global_size(0) * (get_global_id(1) +
                                                  get_global_size(1) * get_global_id(2));
}
kernel void collectives(global const T *in, global const int *predicates, global T *out,
                        global int *votes) {
  size_t id = linear_global_id();
  size_t n = get_global_size(0) * get_global_size(1) * get_global_size(2);
  T x = in[id];
  out[0 * n + id] = work_group_reduce_add(x);
  out[1 * n + id] = work_group_reduce_min(x);
  out[2 * n + id] = work_group_reduce_max(x);
  out[3 * n + id] = work_group_scan_inclusive_add(x);
  out[4 * n + id] = work_group_scan_inclusive_min(x);
  out[5 * n + id] = work_group_scan_inclusive_max(x);
  out[6 * n + id] = work_group_scan_exclusive_add(x);
  out[7 * n + id] = work_group_scan_exclusive_min(x);
  out[8 * n + id] = work_group_scan_exclusive_max(x);
  size_t mx = (get_local_size(0) - 1) / 2, my = (get_local_size(1) - 1) / 2,
         mz = (get_local_size(2) - 1) / 2;
  // Every form in every shape: the one-dimensional one takes a linear local id, the
  // two-dimensional one names (x, y, 0).
  out[9 * n + id] =
      work_group_broadcast(x, mx + get_local_size(0) * (my + get_local_size(1) * mz));
  out[10 * n + id] = work_group_broadcast(x, mx, my);
  out[11 * n + id] = work_group_broadcast(x, mx, my, mz);
  votes[2 * id] = work_group_all(predicates[id]);
  votes[2 * id + 1] = work_group_any(predicates[id]);
}
)";
  return source.str();
}

/// A value as the host computes with it: integers as their bits (wrapped to the type), floating
/// values as double (every test value is a small integer, exact in float and in any order of
/// addition).
class HostArithmetic {
public:
  explicit HostArithmetic(const CollectiveType &type) : type_(type) {}

  int64_t wrap(uint64_t bits) const {
    if (type_.bytes == 8)
      return static_cast<int64_t>(bits);
    uint64_t low = bits & 0xffffffffu;
    return type_.isSigned ? static_cast<int64_t>(static_cast<int32_t>(low))
                          : static_cast<int64_t>(low);
  }
  int64_t add(int64_t a, int64_t b) const { return wrap(uint64_t(a) + uint64_t(b)); }
  bool less(int64_t a, int64_t b) const {
    return type_.isSigned ? a < b : uint64_t(a) < uint64_t(b);
  }

private:
  const CollectiveType &type_;
};

/// The ND-ranges every type runs on.
struct Shape {
  cl_uint dims;
  std::array<size_t, 3> global;
  std::array<size_t, 3> local;
};

std::string describe(const Shape &shape) {
  std::ostringstream text;
  text << "global";
  for (cl_uint dim = 0; dim < shape.dims; ++dim)
    text << (dim ? "x" : " ") << shape.global[dim];
  text << " local";
  for (cl_uint dim = 0; dim < shape.dims; ++dim)
    text << (dim ? "x" : " ") << shape.local[dim];
  return text.str();
}

class WorkGroupCollectivesTest : public ClTest,
                                 public ::testing::WithParamInterface<CollectiveType> {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!hasOpenClCFeature(device_, "__opencl_c_work_group_collective_functions"))
      GTEST_SKIP() << "the device has no work-group collective functions";
    if (std::strcmp(GetParam().name, "double") == 0 && !hasExtension(device_, "cl_khr_fp64"))
      GTEST_SKIP() << "the device has no double";
  }

  /// Input values of the type: small integers (negative ones for signed types), with large
  /// values for the unsigned and 64-bit types so that a signed or 32-bit comparison would show.
  std::vector<uint64_t> inputBits(size_t count) const {
    const CollectiveType &type = GetParam();
    std::vector<uint64_t> bits(count);
    uint32_t state = 12345;
    for (size_t index = 0; index < count; ++index) {
      state = state * 1664525u + 1013904223u;
      int64_t small = int64_t(state >> 20) % 201 - 100; // -100 to 100
      if (type.isFloat) {
        if (type.bytes == 4) {
          float value = float(small);
          uint32_t raw;
          std::memcpy(&raw, &value, 4);
          bits[index] = raw;
        } else {
          double value = double(small);
          std::memcpy(&bits[index], &value, 8);
        }
      } else if (!type.isSigned) {
        uint64_t high =
            type.bytes == 4 ? (state & 1 ? 0x80000000u : 0) : (state & 1 ? 1ull << 63 : 0);
        bits[index] = high | uint64_t(small + 100);
      } else {
        bits[index] = type.bytes == 8 ? uint64_t(small * (int64_t(1) << 35)) : uint64_t(small);
      }
    }
    return bits;
  }

  void runShape(const Shape &shape);
};

/// The host's value of element `index` of raw storage as a number: integers as their wrapped
/// bits, floating values exactly.
struct Element {
  int64_t bits = 0;
  double real = 0;
};

Element readElement(const CollectiveType &type, const std::vector<uint8_t> &raw, size_t index) {
  Element element;
  const uint8_t *at = raw.data() + index * type.bytes;
  if (type.isFloat) {
    if (type.bytes == 4) {
      float value;
      std::memcpy(&value, at, 4);
      element.real = value;
    } else {
      std::memcpy(&element.real, at, 8);
    }
    return element;
  }
  if (type.bytes == 4) {
    uint32_t value;
    std::memcpy(&value, at, 4);
    element.bits = type.isSigned ? int64_t(int32_t(value)) : int64_t(value);
  } else {
    std::memcpy(&element.bits, at, 8);
  }
  return element;
}

/// The operations on Element for one type.
struct ElementOps {
  const CollectiveType &type;
  HostArithmetic host{type};

  Element add(Element a, Element b) const {
    return type.isFloat ? Element{0, a.real + b.real} : Element{host.add(a.bits, b.bits), 0};
  }
  bool less(Element a, Element b) const {
    return type.isFloat ? a.real < b.real : host.less(a.bits, b.bits);
  }
  Element min(Element a, Element b) const { return less(b, a) ? b : a; }
  Element max(Element a, Element b) const { return less(a, b) ? b : a; }
  Element identity(const std::string &op) const {
    if (op == "add")
      return {};
    bool isMin = op == "min";
    if (type.isFloat)
      return {0, isMin ? std::numeric_limits<double>::infinity()
                       : -std::numeric_limits<double>::infinity()};
    if (type.isSigned)
      return {isMin ? (type.bytes == 4 ? int64_t(INT32_MAX) : INT64_MAX)
                    : (type.bytes == 4 ? int64_t(INT32_MIN) : INT64_MIN),
              0};
    return {isMin ? (type.bytes == 4 ? int64_t(UINT32_MAX) : int64_t(-1)) : 0, 0};
  }
  Element apply(const std::string &op, Element a, Element b) const {
    return op == "add" ? add(a, b) : op == "min" ? min(a, b) : max(a, b);
  }
  bool equal(Element a, Element b) const {
    return type.isFloat ? a.real == b.real : a.bits == b.bits;
  }
};

std::string show(const CollectiveType &type, Element element) {
  return type.isFloat ? std::to_string(element.real) : std::to_string(element.bits);
}

void WorkGroupCollectivesTest::runShape(const Shape &shape) {
  const CollectiveType &type = GetParam();
  SCOPED_TRACE(describe(shape));
  Kernel kernel = buildKernel(collectivesSource(type), "collectives", kOpenCLC30);
  ASSERT_NE(nullptr, kernel.get());
  size_t n = shape.global[0] * shape.global[1] * shape.global[2];
  std::vector<uint64_t> bits = inputBits(n);
  std::vector<uint8_t> input(n * type.bytes);
  for (size_t index = 0; index < n; ++index)
    std::memcpy(input.data() + index * type.bytes, &bits[index], type.bytes);
  std::array<size_t, 3> groups{};
  for (int dim = 0; dim < 3; ++dim)
    groups[dim] = (shape.global[dim] + shape.local[dim] - 1) / shape.local[dim];
  // Predicates: work-group g all set (g % 3 == 0), all clear (1), else some set.
  std::vector<int> predicates(n);
  for (size_t id = 0; id < n; ++id) {
    size_t x = id % shape.global[0], y = id / shape.global[0] % shape.global[1],
           z = id / (shape.global[0] * shape.global[1]);
    size_t group =
        x / shape.local[0] + groups[0] * (y / shape.local[1] + groups[1] * (z / shape.local[2]));
    predicates[id] = group % 3 == 0 ? int(id % 5) + 1 : group % 3 == 1 ? 0 : int(id % 4 == 1) * 7;
  }
  Mem in = bufferWith(input);
  Mem predicateBuffer = bufferWith(predicates);
  Mem out = createBuffer(CL_MEM_READ_WRITE, (kOperationCount + 3) * n * type.bytes);
  Mem votes = createBuffer(CL_MEM_READ_WRITE, 2 * n * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, in, predicateBuffer, out, votes));
  ASSERT_TRUE(run(kernel, shape.dims, shape.global.data(), shape.local.data()));
  std::vector<uint8_t> results = read<uint8_t>(out, (kOperationCount + 3) * n * type.bytes);
  std::vector<int> voteResults = read<int>(votes, 2 * n);

  ElementOps ops{type};
  size_t mismatches = 0;
  auto check = [&](const char *what, size_t id, Element expected, Element actual) {
    if (ops.equal(expected, actual) || ++mismatches > 5)
      return;
    ADD_FAILURE() << what << " of work-item " << id << ": expected " << show(type, expected)
                  << ", got " << show(type, actual);
  };
  for (size_t gz = 0; gz < groups[2]; ++gz)
    for (size_t gy = 0; gy < groups[1]; ++gy)
      for (size_t gx = 0; gx < groups[0]; ++gx) {
        std::array<size_t, 3> first{gx * shape.local[0], gy * shape.local[1], gz * shape.local[2]};
        std::array<size_t, 3> size{};
        for (int dim = 0; dim < 3; ++dim)
          size[dim] = std::min(shape.local[dim], shape.global[dim] - first[dim]);
        // The group's work-items in linear local id order.
        std::vector<size_t> members;
        for (size_t z = 0; z < size[2]; ++z)
          for (size_t y = 0; y < size[1]; ++y)
            for (size_t x = 0; x < size[0]; ++x)
              members.push_back(first[0] + x +
                                shape.global[0] *
                                    (first[1] + y + shape.global[1] * (first[2] + z)));
        size_t middle =
            (size[0] - 1) / 2 + size[0] * ((size[1] - 1) / 2 + size[1] * ((size[2] - 1) / 2));
        Element source = readElement(type, input, members[middle]);
        size_t middleOfFirstPlane = (size[0] - 1) / 2 + size[0] * ((size[1] - 1) / 2);
        Element planeSource = readElement(type, input, members[middleOfFirstPlane]);
        bool all = true, any = false;
        for (size_t id : members) {
          all = all && predicates[id] != 0;
          any = any || predicates[id] != 0;
        }
        for (size_t op = 0; op < 3; ++op) {
          std::string name = op == 0 ? "add" : op == 1 ? "min" : "max";
          Element total = ops.identity(name);
          for (size_t id : members)
            total = ops.apply(name, total, readElement(type, input, id));
          Element running = ops.identity(name);
          for (size_t id : members) {
            Element before = running;
            running = ops.apply(name, running, readElement(type, input, id));
            check(kOperations[op], id, total, readElement(type, results, op * n + id));
            check(kOperations[3 + op], id, running, readElement(type, results, (3 + op) * n + id));
            check(kOperations[6 + op], id, before, readElement(type, results, (6 + op) * n + id));
          }
        }
        for (size_t id : members) {
          check("broadcast(linear id)", id, source,
                readElement(type, results, kOperationCount * n + id));
          check("broadcast(x, y)", id, planeSource,
                readElement(type, results, (kOperationCount + 1) * n + id));
          check("broadcast(x, y, z)", id, source,
                readElement(type, results, (kOperationCount + 2) * n + id));
          if (voteResults[2 * id] != int(all) || voteResults[2 * id + 1] != int(any))
            if (++mismatches <= 5)
              ADD_FAILURE() << "all/any of work-item " << id << ": expected " << all << "/" << any
                            << ", got " << voteResults[2 * id] << "/" << voteResults[2 * id + 1];
        }
      }
  EXPECT_EQ(0u, mismatches);
}

// Each shape costs the CPU a compilation of this kernel of many collectives: every size and
// shape for int, fewer for the other types.
TEST_P(WorkGroupCollectivesTest, OneDimensionalGroupsOfManySizes) {
  bool everySize = std::string(GetParam().name) == "int";
  for (size_t local : {size_t(1), size_t(7), size_t(33), size_t(64), size_t(250)})
    if (everySize || local == 7 || local == 64)
      runShape({1, {local * 2, 1, 1}, {local, 1, 1}});
  size_t largest = deviceInfo<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  if (everySize)
    runShape({1, {largest, 1, 1}, {largest, 1, 1}});
}

TEST_P(WorkGroupCollectivesTest, NonUniformNdRanges) {
  if (std::string(GetParam().name) != "int") {
    runShape({1, {100, 1, 1}, {64, 1, 1}});
    return;
  }
  runShape({1, {300, 1, 1}, {250, 1, 1}});
  runShape({2, {32, 10, 1}, {32, 4, 1}});
}

// Rows of whole sub-groups (the odd-shaped groups are OddShapedGroups' below).
TEST_P(WorkGroupCollectivesTest, ThreeDimensionalGroups) {
  runShape({3, {32, 4, 6}, {32, 2, 3}});
}

INSTANTIATE_TEST_SUITE_P(Types, WorkGroupCollectivesTest, ::testing::ValuesIn(kCollectiveTypes),
                         [](const ::testing::TestParamInfo<CollectiveType> &info) {
                           return std::string(info.param.name);
                         });

/// A kernel that uses its own __local memory (a variable and an argument) and barriers around
/// the collectives, at every sub-group size the device offers for intel_reqd_sub_group_size.
class WorkGroupCollectivesMixedTest : public ClTest {};

constexpr const char *kMixedSource = R"(
kernel void mixed(global const int *in, global int *out, local int *doubled) {
  local int reversed[256];
  size_t l = get_local_id(0), size = get_local_size(0), id = get_global_id(0);
  reversed[size - 1 - l] = in[id];
  doubled[l] = 2 * in[id];
  barrier(CLK_LOCAL_MEM_FENCE);
  int scan = work_group_scan_inclusive_add(reversed[l]);
  int largest = work_group_reduce_max(doubled[l]);
  barrier(CLK_LOCAL_MEM_FENCE);
  reversed[l] = scan;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[3 * id] = reversed[(l + 1) % size];
  out[3 * id + 1] = largest;
  out[3 * id + 2] = work_group_broadcast(scan, size - 1);
}
)";

void checkMixed(const std::vector<int> &input, const std::vector<int> &output, size_t local) {
  size_t mismatches = 0;
  for (size_t first = 0; first < input.size(); first += local) {
    size_t size = std::min(local, input.size() - first);
    std::vector<int> scan(size);
    int running = 0, largest = std::numeric_limits<int>::min();
    for (size_t l = 0; l < size; ++l) {
      running += input[first + size - 1 - l];
      scan[l] = running;
      largest = std::max(largest, 2 * input[first + l]);
    }
    for (size_t l = 0; l < size; ++l) {
      size_t id = first + l;
      std::array<int, 3> expected{scan[(l + 1) % size], largest, scan[size - 1]};
      for (int k = 0; k < 3; ++k)
        if (output[3 * id + k] != expected[k] && ++mismatches <= 5)
          ADD_FAILURE() << "work-item " << id << " result " << k << ": expected " << expected[k]
                        << ", got " << output[3 * id + k];
    }
  }
  EXPECT_EQ(0u, mismatches);
}

TEST_F(WorkGroupCollectivesMixedTest, OwnLocalMemoryAndBarriersAtEveryRequiredSubGroupSize) {
  std::vector<size_t> sizes{0};
  if (hasExtension(device_, "cl_intel_required_subgroup_size"))
    for (size_t size : deviceArray<size_t>(device_, CL_DEVICE_SUB_GROUP_SIZES_INTEL))
      sizes.push_back(size);
  std::vector<int> input(500);
  for (size_t index = 0; index < input.size(); ++index)
    input[index] = int(index * 37 % 101) - 50;
  for (size_t subGroupSize : sizes) {
    SCOPED_TRACE("required sub-group size " + std::to_string(subGroupSize));
    std::string source = kMixedSource;
    if (subGroupSize != 0)
      source = "__attribute__((intel_reqd_sub_group_size(" + std::to_string(subGroupSize) +
               ")))\n" + source.substr(1);
    Kernel kernel = buildKernel(source, "mixed", kOpenCLC30);
    ASSERT_NE(nullptr, kernel.get());
    // The collectives' scratch is the device's, reported beside the kernel's own 1 KiB and the
    // argument's.
    ASSERT_TRUE(setArgs(kernel, Mem(), Mem(), LocalSize{256 * sizeof(int)}));
    cl_ulong localMemory = workGroupInfo<cl_ulong>(kernel, device_, CL_KERNEL_LOCAL_MEM_SIZE);
    EXPECT_GT(localMemory, 2 * 256 * sizeof(int));
    EXPECT_LE(localMemory, deviceInfo<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE));
    for (size_t local : {size_t(250), size_t(33)}) {
      SCOPED_TRACE("local size " + std::to_string(local));
      Mem in = bufferWith(input);
      Mem out = createBuffer(CL_MEM_READ_WRITE, 3 * input.size() * sizeof(int));
      ASSERT_TRUE(setArgs(kernel, in, out, LocalSize{local * sizeof(int)}));
      ASSERT_TRUE(run1D(kernel, input.size(), local));
      checkMixed(input, read<int>(out, 3 * input.size()), local);
    }
  }
}

// Groups whose rows are not whole sub-groups: the CPU runs their work-items one at a time and
// passes the sub-groups' values through barriers (a kernel of few collectives: each exchange
// across lanes is a barrier there, which costs compile time).
TEST_F(WorkGroupCollectivesMixedTest, OddShapedGroups) {
  Kernel kernel = buildKernel(R"(
kernel void odd(global const long *in, global long *out) {
  size_t id = get_global_id(0) + get_global_size(0) * (get_global_id(1) +
                                                       get_global_size(1) * get_global_id(2));
  long x = in[id];
  out[3 * id] = work_group_reduce_add(x);
  out[3 * id + 1] = work_group_scan_exclusive_max(x);
  out[3 * id + 2] = work_group_broadcast(x, 1, 2, 1);
}
)",
                              "odd", kOpenCLC30);
  ASSERT_NE(nullptr, kernel.get());
  const size_t global[3] = {6, 4, 6}, local[3] = {3, 4, 3};
  std::vector<long> input(6 * 4 * 6);
  for (size_t index = 0; index < input.size(); ++index)
    input[index] = long(index * 7919 % 1000) - 500;
  Mem in = bufferWith(input);
  Mem out = createBuffer(CL_MEM_READ_WRITE, 3 * input.size() * sizeof(long));
  ASSERT_TRUE(setArgs(kernel, in, out));
  ASSERT_TRUE(run(kernel, 3, global, local));
  std::vector<long> results = read<long>(out, 3 * input.size());
  size_t mismatches = 0;
  for (size_t gz = 0; gz < 2; ++gz)
    for (size_t gx = 0; gx < 2; ++gx) {
      std::vector<size_t> members; // linear local id order
      for (size_t z = 0; z < 3; ++z)
        for (size_t y = 0; y < 4; ++y)
          for (size_t x = 0; x < 3; ++x)
            members.push_back(gx * 3 + x + 6 * (y + 4 * (gz * 3 + z)));
      long sum = 0, running = std::numeric_limits<long>::min();
      for (size_t id : members)
        sum += input[id];
      long source = input[members[1 + 3 * (2 + 4 * 1)]];
      for (size_t id : members) {
        std::array<long, 3> expected{sum, running, source};
        running = std::max(running, input[id]);
        for (int k = 0; k < 3; ++k)
          if (results[3 * id + k] != expected[k] && ++mismatches <= 5)
            ADD_FAILURE() << "work-item " << id << " result " << k << ": expected " << expected[k]
                          << ", got " << results[3 * id + k];
      }
    }
  EXPECT_EQ(0u, mismatches);
}

TEST_F(WorkGroupCollectivesMixedTest, FeatureMacroIsDefined) {
  EXPECT_EQ(cl_bool{CL_TRUE},
            deviceInfo<cl_bool>(device_, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT));
  Kernel kernel = buildKernel(R"(
#ifndef __opencl_c_work_group_collective_functions
#error no work-group collective functions
#endif
kernel void k(global int *out) { out[0] = work_group_all(1); }
)",
                              "k", kOpenCLC30);
  EXPECT_NE(nullptr, kernel.get());
}

} // namespace
