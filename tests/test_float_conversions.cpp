// Saturating conversions of floats and doubles to integers (convert_<type>_sat<_rounding>): NaN
// gives 0, a value beyond the type's range the nearest bound, and every rounding mode rounds
// before the clamp. The GPU converts with PTX's cvt, which does all of that in one instruction;
// the CPU clamps in software. Scalars and vectors, against the host computing in long double.
#include "cl_test.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace cltest;

namespace {

/// The OpenCL rounding suffixes, in the order each kernel writes them.
const char *const kRoundings[] = {"_rte", "_rtz", "_rtp", "_rtn"};

/// `x` rounded to an integral value as the rounding suffix `rounding` (an index of kRoundings)
/// says; the host's long double holds every float and double exactly.
long double roundedAs(long double x, int rounding) {
  switch (rounding) {
  case 0:
    return std::nearbyint(x); // the default rounding mode: to nearest, ties to even
  case 1:
    return std::trunc(x);
  case 2:
    return std::ceil(x);
  default:
    return std::floor(x);
  }
}

/// What convert_<D>_sat<rounding> gives for `x`.
template <typename D> D saturated(long double x, int rounding) {
  if (std::isnan(x))
    return 0;
  long double r = roundedAs(x, rounding);
  if (r <= static_cast<long double>(std::numeric_limits<D>::min()))
    return std::numeric_limits<D>::min();
  if (r >= static_cast<long double>(std::numeric_limits<D>::max()))
    return std::numeric_limits<D>::max();
  return static_cast<D>(r);
}

/// Values at the edges of every integer type's range, halfway cases, subnormals, the infinities
/// and NaN, and some ordinary values.
template <typename S> std::vector<S> specialValues() {
  const S inf = std::numeric_limits<S>::infinity();
  std::vector<S> values = {std::numeric_limits<S>::quiet_NaN(),
                           -std::numeric_limits<S>::quiet_NaN(),
                           inf,
                           -inf,
                           S(0),
                           -S(0),
                           S(0.5),
                           S(1.5),
                           S(2.5),
                           S(-0.5),
                           S(-1.5),
                           S(-2.5),
                           S(0.49999997),
                           std::numeric_limits<S>::denorm_min(),
                           -std::numeric_limits<S>::denorm_min(),
                           S(127.5),
                           S(128),
                           S(-128.5),
                           S(255.5),
                           S(256),
                           S(-0.75),
                           S(32767.5),
                           S(-32768.5),
                           S(65535.5),
                           S(2147483520.0),
                           S(2147483648.0),
                           S(-2147483648.0),
                           S(-2147483904.0),
                           S(4294967040.0),
                           S(4294967296.0),
                           S(9223371487098961920.0),
                           S(9223372036854775808.0),
                           S(-9223372036854775808.0),
                           S(18446742974197923840.0),
                           S(18446744073709551616.0),
                           S(1e20),
                           S(-1e20),
                           std::numeric_limits<S>::max(),
                           std::numeric_limits<S>::lowest()};
  if constexpr (sizeof(S) == 8) {
    // Halfway cases and neighbours that only a double holds.
    for (S edge : {2147483647.0, -2147483648.0, 4294967295.0, 65535.0, 255.0})
      for (S offset : {-0.5, 0.5, 0.25, -0.25})
        values.push_back(edge + offset);
    values.push_back(9007199254740993.0);
  }
  Random random(7);
  while (values.size() % 4 != 0 || values.size() < 64)
    values.push_back(static_cast<S>(random.uniform(-70000.0f, 70000.0f)));
  return values;
}

class FloatToIntegerConversionTest : public ClTest {
protected:
  /// Converts specialValues<S>() to D with every rounding, scalar by scalar and four at a time,
  /// and compares with the host.
  template <typename S, typename D>
  void checkConversions(const std::string &source, const std::string &destination) {
    if constexpr (sizeof(S) == 8)
      if (!hasExtension(device_, "cl_khr_fp64"))
        GTEST_SKIP() << "no cl_khr_fp64";
    std::string kernels = sizeof(S) == 8 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
    kernels += "kernel void scalars(global const " + source + " *in, global " + destination +
               " *out, uint n) {\n  size_t i = get_global_id(0);\n";
    for (int r = 0; r < 4; ++r)
      kernels += "  out[" + std::to_string(r) + " * n + i] = convert_" + destination + "_sat" +
                 kRoundings[r] + "(in[i]);\n";
    kernels += "}\nkernel void vectors(global const " + source + " *in, global " + destination +
               " *out, uint n) {\n  size_t i = get_global_id(0);\n  " + source +
               "4 x = vload4(i, in);\n";
    for (int r = 0; r < 4; ++r)
      kernels += "  vstore4(convert_" + destination + "4_sat" + kRoundings[r] + "(x), i, out + " +
                 std::to_string(r) + " * n);\n";
    kernels += "}\n";

    std::vector<S> values = specialValues<S>();
    const size_t n = values.size();
    std::vector<D> expected(4 * n);
    for (int r = 0; r < 4; ++r)
      for (size_t i = 0; i < n; ++i)
        expected[r * n + i] = saturated<D>(values[i], r);

    Program program = build(kernels);
    ASSERT_NE(program, nullptr);
    Mem in = bufferWith(values);
    for (const char *name : {"scalars", "vectors"}) {
      SCOPED_TRACE(std::string(name) + ": " + source + " to " + destination);
      Kernel kernel = createKernel(program, name);
      ASSERT_NE(kernel, nullptr);
      Mem out = createBuffer(CL_MEM_READ_WRITE, 4 * n * sizeof(D));
      ASSERT_TRUE(setArgs(kernel, in, out, static_cast<cl_uint>(n)));
      bool vectors = std::string(name) == "vectors";
      ASSERT_TRUE(run1D(kernel, vectors ? n / 4 : n));
      EXPECT_TRUE(equalArrays(expected, read<D>(out, 4 * n)));
    }
  }
};

TEST_F(FloatToIntegerConversionTest, FloatsSaturateAndRoundToEveryIntegerType) {
  checkConversions<float, cl_int>("float", "int");
  checkConversions<float, cl_uint>("float", "uint");
  checkConversions<float, cl_long>("float", "long");
  checkConversions<float, cl_ulong>("float", "ulong");
  checkConversions<float, cl_short>("float", "short");
  checkConversions<float, cl_uchar>("float", "uchar");
}

TEST_F(FloatToIntegerConversionTest, DoublesSaturateAndRoundToEveryIntegerType) {
  checkConversions<double, cl_int>("double", "int");
  checkConversions<double, cl_uint>("double", "uint");
  checkConversions<double, cl_long>("double", "long");
  checkConversions<double, cl_ulong>("double", "ulong");
  checkConversions<double, cl_char>("double", "char");
}

} // namespace
