// Integer division and remainder by zero, and the signed overflow MIN / -1: OpenCL leaves their
// values undefined but never lets them stop the program, while x86's division instruction traps
// (SIGFPE) on both. Every integer type at every vector width must run to completion, with the
// defined elements right.
#include "cl_test.hpp"

#include <limits>
#include <tuple>

using namespace cltest;

namespace {

struct IntegerType {
  const char *name;
  unsigned bytes;
  bool isSigned;
};

const IntegerType kIntegerTypes[] = {
    {"char", 1, true}, {"uchar", 1, false}, {"short", 2, true}, {"ushort", 2, false},
    {"int", 4, true},  {"uint", 4, false},  {"long", 8, true},  {"ulong", 8, false},
};

/// An element of any integer type, kept as its 64-bit two's complement value.
struct Element {
  static uint64_t mask(unsigned bytes) { return bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }
  static int64_t signExtend(uint64_t bits, unsigned bytes) {
    unsigned shift = 64 - 8 * bytes;
    return static_cast<int64_t>(bits << shift) >> shift;
  }
  static uint64_t read(const std::vector<uint8_t> &data, size_t index, unsigned bytes) {
    uint64_t value = 0;
    std::memcpy(&value, data.data() + index * bytes, bytes);
    return value;
  }
  static void write(std::vector<uint8_t> &data, size_t index, unsigned bytes, uint64_t value) {
    std::memcpy(data.data() + index * bytes, &value, bytes);
  }
};

/// Dividends and divisors with zeros, MIN / -1 pairs and ordinary values mixed in.
void makeOperands(const IntegerType &type, size_t count, std::vector<uint8_t> &dividends,
                  std::vector<uint8_t> &divisors) {
  dividends.assign(count * type.bytes, 0);
  divisors.assign(count * type.bytes, 0);
  uint64_t mask = Element::mask(type.bytes);
  uint64_t minimum = type.isSigned ? (mask >> 1) + 1 : 0;
  Random random(type.bytes * 2 + type.isSigned);
  for (size_t i = 0; i < count; ++i) {
    uint64_t a = random.next() & mask, b = random.next() & mask;
    switch (i % 5) {
    case 0:
      b = 0; // division by zero
      break;
    case 1:
      a = minimum, b = mask; // MIN / -1 (for unsigned types: 0 / MAX)
      break;
    case 2:
      b >>= 8 * type.bytes / 2; // a small divisor (possibly zero too)
      break;
    default:
      break;
    }
    Element::write(dividends, i, type.bytes, a);
    Element::write(divisors, i, type.bytes, b);
  }
}

/// Whether OpenCL defines a / b and a % b for these operands.
bool isDefined(const IntegerType &type, uint64_t a, uint64_t b) {
  if (b == 0)
    return false;
  if (!type.isSigned)
    return true;
  int64_t sa = Element::signExtend(a, type.bytes), sb = Element::signExtend(b, type.bytes);
  int64_t minimum = Element::signExtend((Element::mask(type.bytes) >> 1) + 1, type.bytes);
  return !(sa == minimum && sb == -1);
}

uint64_t hostQuotient(const IntegerType &type, uint64_t a, uint64_t b) {
  if (!type.isSigned)
    return (a / b) & Element::mask(type.bytes);
  return static_cast<uint64_t>(Element::signExtend(a, type.bytes) /
                               Element::signExtend(b, type.bytes)) &
         Element::mask(type.bytes);
}

uint64_t hostRemainder(const IntegerType &type, uint64_t a, uint64_t b) {
  if (!type.isSigned)
    return (a % b) & Element::mask(type.bytes);
  return static_cast<uint64_t>(Element::signExtend(a, type.bytes) %
                               Element::signExtend(b, type.bytes)) &
         Element::mask(type.bytes);
}

std::string divisionKernel(const IntegerType &type, int width) {
  std::string scalar = type.name;
  std::string vector = width == 1 ? scalar : scalar + std::to_string(width);
  std::string load = width == 1 ? "p[i]" : "vload" + std::to_string(width) + "(i, p)";
  std::string store = width == 1 ? "p[i] = v" : "vstore" + std::to_string(width) + "(v, i, p)";
  return "#define T " + scalar + "\n#define TN " + vector + "\n#define LOAD(i, p) " + load +
         "\n#define STORE(v, i, p) " + store + "\n" + R"(
    kernel void divide(global const T *a, global const T *b, global T *q, global T *r) {
      size_t i = get_global_id(0);
      TN x = LOAD(i, a);
      TN y = LOAD(i, b);
      STORE(x / y, i, q);
      STORE(x % y, i, r);
    })";
}

using DivisionCase = std::tuple<IntegerType, int, const char *>;

class IntegerDivisionTest : public ClTest, public ::testing::WithParamInterface<DivisionCase> {};

TEST_P(IntegerDivisionTest, ByZeroAndOverflowDoNotTrap) {
  auto [type, width, options] = GetParam();
  constexpr size_t kItems = 1000;
  size_t count = kItems * width;
  std::vector<uint8_t> dividends, divisors;
  makeOperands(type, count, dividends, divisors);

  Kernel kernel = buildKernel(divisionKernel(type, width), "divide", options);
  ASSERT_NE(nullptr, kernel.get());
  Mem a = bufferWith(dividends), b = bufferWith(divisors);
  Mem q = createBuffer(CL_MEM_READ_WRITE, count * type.bytes);
  Mem r = createBuffer(CL_MEM_READ_WRITE, count * type.bytes);
  ASSERT_TRUE(setArgs(kernel, a, b, q, r));
  ASSERT_TRUE(run1D(kernel, kItems));
  std::vector<uint8_t> quotients = read<uint8_t>(q, count * type.bytes);
  std::vector<uint8_t> remainders = read<uint8_t>(r, count * type.bytes);

  size_t checked = 0, wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    uint64_t x = Element::read(dividends, i, type.bytes);
    uint64_t y = Element::read(divisors, i, type.bytes);
    if (!isDefined(type, x, y))
      continue;
    ++checked;
    uint64_t quotient = Element::read(quotients, i, type.bytes);
    uint64_t remainder = Element::read(remainders, i, type.bytes);
    if (quotient != hostQuotient(type, x, y) || remainder != hostRemainder(type, x, y)) {
      if (wrong++ < 5)
        ADD_FAILURE() << "element " << i << ": " << x << " / " << y << " gave " << quotient
                      << " remainder " << remainder;
    }
  }
  EXPECT_EQ(0u, wrong);
  EXPECT_GT(checked, count / 2);
}

std::string caseName(const ::testing::TestParamInfo<DivisionCase> &info) {
  auto [type, width, options] = info.param;
  std::string name = std::string(type.name) + (width == 1 ? "" : std::to_string(width));
  return std::string(options).empty() ? name : name + "_OptDisabled";
}

INSTANTIATE_TEST_SUITE_P(AllTypes, IntegerDivisionTest,
                         ::testing::Combine(::testing::ValuesIn(kIntegerTypes),
                                            ::testing::Values(1, 2, 3, 4, 8, 16),
                                            ::testing::Values("")),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Unoptimized, IntegerDivisionTest,
                         ::testing::Values(DivisionCase{kIntegerTypes[4], 1, "-cl-opt-disable"},
                                           DivisionCase{kIntegerTypes[0], 16, "-cl-opt-disable"},
                                           DivisionCase{kIntegerTypes[7], 4, "-cl-opt-disable"}),
                         caseName);

class DivisionTest : public ClTest {
protected:
  /// Whether `quotient` and `remainder` hold the host's `in / divisor` and `in % divisor`.
  void expectHostsDivision(const std::vector<cl_uint> &in, cl_uint divisor, cl_mem quotient,
                           cl_mem remainder) {
    std::vector<cl_uint> expectedQuotient(in.size()), expectedRemainder(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      expectedQuotient[i] = in[i] / divisor;
      expectedRemainder[i] = in[i] % divisor;
    }
    EXPECT_TRUE(equalArrays(expectedQuotient, read<cl_uint>(quotient, in.size()))) << divisor;
    EXPECT_TRUE(equalArrays(expectedRemainder, read<cl_uint>(remainder, in.size()))) << divisor;
  }
};

// A divisor that is the same for every work-item (a kernel argument) and zero, and a constant
// zero divisor the compiler sees: both run, and the rest of the kernel's results are right.
TEST_F(DivisionTest, UniformAndConstantZeroDivisorsDoNotTrap) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global int *out, int divisor, int minimum, int minusOne, int mask) {
      size_t i = get_global_id(0);
      int x = (int)i + 7;
      int undefined = x / divisor + x % divisor + minimum / minusOne + minimum % minusOne;
      out[i] = x * 2 + (undefined & mask);
      #pragma clang diagnostic ignored "-Wdivision-by-zero"
      out[i + get_global_size(0)] = (x / 0) & 0;
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t kItems = 4096;
  Mem out = createBuffer(CL_MEM_READ_WRITE, 2 * kItems * sizeof(cl_int));
  ASSERT_TRUE(
      setArgs(kernel, out, cl_int{0}, std::numeric_limits<cl_int>::min(), cl_int{-1}, cl_int{0}));
  ASSERT_TRUE(run1D(kernel, kItems));
  std::vector<cl_int> result = read<cl_int>(out, kItems);
  for (size_t i = 0; i < kItems; ++i)
    ASSERT_EQ(static_cast<cl_int>(i + 7) * 2, result[i]) << "at " << i;
}

// Unsigned division and remainder by a kernel argument: Kiln's CPU device turns them into a
// shift and a mask when the argument is a power of two, and divides otherwise.
TEST_F(DivisionTest, UnsignedDivisionByAnArgumentGivesTheHostsResults) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global const uint *in, global uint *quotient, global uint *remainder,
                  global ulong *wide, uint divisor, ulong wideDivisor) {
      size_t i = get_global_id(0);
      quotient[i] = in[i] / divisor;
      remainder[i] = in[i] % divisor;
      wide[i] = ((ulong)in[i] * 0x9e3779b97f4a7c15ul) / wideDivisor +
                ((ulong)in[i] << 20) % wideDivisor;
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t kItems = 1000;
  std::vector<cl_uint> in = Random(5).values<cl_uint>(kItems);
  in[0] = 0;
  in[1] = 0xffffffffu;
  Mem input = bufferWith(in);
  Mem quotient = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_uint));
  Mem remainder = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_uint));
  Mem wide = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_ulong));
  for (cl_uint divisor : {1u, 2u, 3u, 8u, 7u, 1024u, 1000u, 0x80000000u, 0xffffffffu}) {
    cl_ulong wideDivisor = divisor == 3u ? (cl_ulong{1} << 40) : cl_ulong{divisor} * 3;
    ASSERT_TRUE(setArgs(kernel, input, quotient, remainder, wide, divisor, wideDivisor));
    ASSERT_TRUE(run1D(kernel, kItems, 100));
    expectHostsDivision(in, divisor, quotient, remainder);
    std::vector<cl_ulong> expectedWide(kItems);
    for (size_t i = 0; i < kItems; ++i)
      expectedWide[i] = (cl_ulong{in[i]} * 0x9e3779b97f4a7c15ull) / wideDivisor +
                        (cl_ulong{in[i]} << 20) % wideDivisor;
    EXPECT_TRUE(equalArrays(expectedWide, read<cl_ulong>(wide, kItems))) << wideDivisor;
  }
}

// Unsigned division and remainder of every lane by a divisor read from memory, the same in
// every work-item: Kiln's CPU device multiplies by a reciprocal found once per SIMD group.
TEST_F(DivisionTest, UnsignedDivisionByALoadedDivisorGivesTheHostsResults) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global const uint *in, global const uint *divisor, global uint *quotient,
                  global uint *remainder) {
      size_t i = get_global_id(0);
      uint d = divisor[0];
      quotient[i] = in[i] / d;
      remainder[i] = in[i] % d;
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t kItems = 1024;
  Mem quotient = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_uint));
  Mem remainder = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_uint));
  for (cl_uint divisor : {1u, 2u, 3u, 7u, 1000u, 65537u, 0x7fffffffu, 0x80000000u, 0x80000001u,
                          0xfffffffeu, 0xffffffffu}) {
    std::vector<cl_uint> in = Random(divisor).values<cl_uint>(kItems);
    // Around multiples of the divisor and at the ends of the range.
    std::vector<cl_uint> edges = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    for (cl_uint multiple : {1u, 2u, 5u, 1000u})
      for (int offset : {-1, 0, 1})
        edges.push_back(divisor * multiple + static_cast<cl_uint>(offset));
    std::copy(edges.begin(), edges.end(), in.begin());
    Mem input = bufferWith(in);
    Mem divisorBuffer = bufferWith(std::vector<cl_uint>{divisor});
    ASSERT_TRUE(setArgs(kernel, input, divisorBuffer, quotient, remainder));
    ASSERT_TRUE(run1D(kernel, kItems, 64));
    expectHostsDivision(in, divisor, quotient, remainder);
  }
}

} // namespace
