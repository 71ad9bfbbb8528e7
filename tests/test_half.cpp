// Half precision (cl_khr_fp16): arithmetic, conversions with every rounding mode, the math
// builtins, collectives, images and kernel arguments, against host references computed in
// double and rounded once to half (GCC's _Float16).
#include "cl_test.hpp"

#include <array>
#include <cmath>
#include <cstring>

using namespace cltest;

namespace {

using Half = _Float16;

uint16_t bitsOf(Half h) {
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

Half fromBits(uint16_t bits) {
  Half h;
  std::memcpy(&h, &bits, sizeof h);
  return h;
}

bool isNan(Half h) {
  return (bitsOf(h) & 0x7c00) == 0x7c00 && (bitsOf(h) & 0x3ff) != 0;
}

/// The distance in representable halves between a and b (both not NaN).
int ulpsApart(Half a, Half b) {
  auto line = [](Half h) {
    int bits = bitsOf(h);
    return bits & 0x8000 ? -(bits & 0x7fff) : bits;
  };
  return std::abs(line(a) - line(b));
}

/// The next half after `h` (not NaN) towards +infinity (up) or -infinity.
Half step(Half h, bool up) {
  uint16_t bits = bitsOf(h);
  if ((bits & 0x7fff) == 0) // a zero steps to the smallest subnormal of the direction's sign
    return fromBits(up ? 0x0001 : 0x8001);
  bool positive = !(bits & 0x8000);
  return fromBits(static_cast<uint16_t>(positive == up ? bits + 1 : bits - 1));
}

/// The half `x` rounds to in each mode, nearest first, then towards zero, up and down.
std::array<uint16_t, 4> roundedHalves(double x) {
  Half nearest = Half(x); // GCC rounds a double to half once, correctly
  if (std::isnan(x))
    return {bitsOf(nearest), bitsOf(nearest), bitsOf(nearest), bitsOf(nearest)};
  Half below = nearest, above = nearest;
  if (double(nearest) > x)
    below = step(nearest, false);
  if (double(nearest) < x)
    above = step(nearest, true);
  Half towardZero = x < 0 ? above : below;
  return {bitsOf(nearest), bitsOf(towardZero), bitsOf(above), bitsOf(below)};
}

/// Every half that is not a NaN, in bit order.
std::vector<Half> everyHalf() {
  std::vector<Half> values;
  for (uint32_t bits = 0; bits < 0x10000; ++bits)
    if (!isNan(fromBits(static_cast<uint16_t>(bits))))
      values.push_back(fromBits(static_cast<uint16_t>(bits)));
  return values;
}

class HalfTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!hasExtension(device_, "cl_khr_fp16"))
      GTEST_SKIP() << "no cl_khr_fp16";
  }

  /// Runs kernel `name` of `source` over inputs `a`, `b`, `c` (one work-item each), which writes
  /// `outputs` halves per work-item; returns them.
  std::vector<Half> runHalf(const std::string &source, const char *name, const std::vector<Half> &a,
                            const std::vector<Half> &b, const std::vector<Half> &c,
                            size_t outputs) {
    Kernel kernel = buildKernel("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + source, name);
    if (kernel == nullptr)
      return {};
    Mem aBuffer = bufferWith(a), bBuffer = bufferWith(b), cBuffer = bufferWith(c);
    Mem out = createBuffer(CL_MEM_READ_WRITE, a.size() * outputs * sizeof(Half));
    EXPECT_TRUE(setArgs(kernel, aBuffer, bBuffer, cBuffer, out));
    EXPECT_TRUE(run1D(kernel, a.size()));
    return read<Half>(out, a.size() * outputs);
  }
};

TEST_F(HalfTest, DeviceDescribesItsHalfPrecision) {
  auto config = deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_HALF_FP_CONFIG);
  EXPECT_TRUE(config & CL_FP_ROUND_TO_NEAREST);
  EXPECT_TRUE(config & CL_FP_INF_NAN);
  EXPECT_NE(0u, deviceInfo<cl_uint>(device_, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF));
  EXPECT_NE(0u, deviceInfo<cl_uint>(device_, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF));
}

// Every half against a few partners: the basic operations are correctly rounded, subnormals
// included.
TEST_F(HalfTest, ArithmeticIsCorrectlyRoundedForEveryHalf) {
  std::vector<Half> x = everyHalf();
  const Half partners[] = {Half(3.0f),       Half(-0.7f),         fromBits(0x0001) /* smallest */,
                           fromBits(0x7bff), Half(1.0009765625f), Half(-1000.0f)};
  for (Half partner : partners) {
    std::vector<Half> y(x.size(), partner), z(x.size(), Half(0.3f));
    std::vector<Half> out = runHalf(R"(
      kernel void arithmetic(global half *x, global half *y, global half *z, global half *out) {
        size_t i = get_global_id(0);
        half a = x[i], b = y[i];
        out[6 * i + 0] = a + b;
        out[6 * i + 1] = a - b;
        out[6 * i + 2] = a * b;
        out[6 * i + 3] = a / b;
        out[6 * i + 4] = sqrt(a);
        out[6 * i + 5] = fma(a, b, z[i]);
      })",
                                    "arithmetic", x, y, z, 6);
    ASSERT_EQ(x.size() * 6, out.size());
    int failures = 0;
    for (size_t i = 0; i < x.size() && failures < 10; ++i) {
      double a = double(x[i]), b = double(partner), c = double(z[i]);
      Half expected[] = {Half(a + b), Half(a - b),        Half(a * b),
                         Half(a / b), Half(std::sqrt(a)), Half(std::fma(a, b, c))};
      for (int op = 0; op < 6; ++op) {
        Half got = out[6 * i + op];
        bool same = isNan(expected[op]) ? isNan(got) : bitsOf(got) == bitsOf(expected[op]);
        if (!same && ++failures <= 10)
          ADD_FAILURE() << "op " << op << " of " << float(x[i]) << " and " << float(partner) << ": "
                        << float(got) << ", expected " << float(expected[op]);
      }
    }
  }
}

// float to half with each rounding mode, and half to int saturating.
TEST_F(HalfTest, ConversionsRoundAsAsked) {
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void conversions(global const float *in, global half *out, global int *ints) {
      size_t i = get_global_id(0);
      float f = in[i];
      out[4 * i + 0] = convert_half_rte(f);
      out[4 * i + 1] = convert_half_rtz(f);
      out[4 * i + 2] = convert_half_rtp(f);
      out[4 * i + 3] = convert_half_rtn(f);
      half h = convert_half(f);
      ints[2 * i] = convert_int_sat_rtn(h);
      ints[2 * i + 1] = convert_short_sat(h * (half)4);
    })",
                              "conversions");
  ASSERT_NE(nullptr, kernel.get());
  Random random;
  std::vector<float> in;
  for (int i = 0; i < 4000; ++i)
    in.push_back(random.uniform(-70000.0f, 70000.0f) / float(1 << (i % 20)));
  for (float special : {0.0f, -0.0f, INFINITY, -INFINITY, 65519.0f, 65520.0f, 1e-8f, -3e-8f})
    in.push_back(special);
  Mem inBuffer = bufferWith(in);
  Mem out = createBuffer(CL_MEM_READ_WRITE, in.size() * 4 * sizeof(Half));
  Mem ints = createBuffer(CL_MEM_READ_WRITE, in.size() * 2 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, inBuffer, out, ints));
  ASSERT_TRUE(run1D(kernel, in.size()));
  std::vector<Half> halves = read<Half>(out, in.size() * 4);
  std::vector<cl_int> integers = read<cl_int>(ints, in.size() * 2);
  for (size_t i = 0; i < in.size(); ++i) {
    double f = in[i];
    std::array<uint16_t, 4> expected = roundedHalves(f);
    for (int mode = 0; mode < 4; ++mode)
      EXPECT_EQ(expected[mode], bitsOf(halves[4 * i + mode])) << f << " mode " << mode;
    double h = double(fromBits(expected[0]));
    double floored = std::isinf(h) ? h : std::floor(h);
    cl_int saturated = floored >= 2147483648.0   ? INT32_MAX
                       : floored < -2147483648.0 ? INT32_MIN
                                                 : static_cast<cl_int>(floored);
    EXPECT_EQ(saturated, integers[2 * i]) << f;
    double scaled = double(Half(h * 4));
    cl_int shortSaturated = scaled >= 32767 ? 32767 : scaled <= -32768 ? -32768 : int(scaled);
    EXPECT_EQ(shortSaturated, integers[2 * i + 1]) << f;
  }
}

// vstore_half in every mode, from float (scalars and vectors) and from double, whose values
// between two floats must not round twice: 1 + 2^-11 + 2^-30 is just above the midpoint of two
// halves, and rounding it to float first would land on the midpoint, which ties to even.
TEST_F(HalfTest, VstoreHalfRoundsFloatsAndDoublesOnceInEveryMode) {
  if (!hasExtension(device_, "cl_khr_fp64"))
    GTEST_SKIP() << "no cl_khr_fp64";
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    kernel void store(global const float4 *f, global const double *d, global half *fromFloat,
                      global half *fromDouble) {
      size_t i = get_global_id(0);
      float4 v = f[i];
      vstore_half4_rte(v, 4 * i, fromFloat);
      vstore_half4_rtz(v, 4 * i + 1, fromFloat);
      vstore_half4_rtp(v, 4 * i + 2, fromFloat);
      vstore_half4_rtn(v, 4 * i + 3, fromFloat);
      for (int k = 0; k < 4; ++k) {
        double x = d[4 * i + k];
        vstore_half_rte(x, 16 * i + 4 * k, fromDouble);
        vstore_half_rtz(x, 16 * i + 4 * k + 1, fromDouble);
        vstore_half_rtp(x, 16 * i + 4 * k + 2, fromDouble);
        vstore_half_rtn(x, 16 * i + 4 * k + 3, fromDouble);
      }
    })",
                              "store");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<double> doubles = {0.0,
                                 -0.0,
                                 INFINITY,
                                 -INFINITY,
                                 NAN,
                                 65504.0,
                                 65519.99,
                                 65520.0,
                                 -65520.5,
                                 1e300,
                                 -1e300,
                                 1e-300,
                                 -1e-300,
                                 0x1p-24,
                                 0x1.8p-25,
                                 0x1p-25,
                                 0x1.000001p-25,
                                 1e-45,
                                 0x1p-14,
                                 0x1.ffcp-15,
                                 1.0 + 0x1p-11 + 0x1p-30,
                                 1.0 + 0x1p-11 - 0x1p-30,
                                 -(1.0 + 0x1p-11 + 0x1p-40),
                                 2049.0 + 0x1p-28,
                                 0x1.0018p0};
  Random random;
  while (doubles.size() % 4 != 0 || doubles.size() < 4000) {
    double magnitude = std::ldexp(random.uniform(1.0f, 2.0f) + random.uniform(0.0f, 1.0f) * 0x1p-23,
                                  int(random.uniform(-30.0f, 18.0f)));
    doubles.push_back(doubles.size() % 2 ? magnitude : -magnitude);
  }
  std::vector<float> floats;
  for (double x : doubles)
    floats.push_back(static_cast<float>(x));
  // Float subnormals, and the float just below the smallest normal half.
  size_t slot = floats.size();
  for (float special : {1e-45f, -0x1p-126f, 0x1.fffffep-15f, -0x1.002p-14f})
    floats[--slot] = special;
  size_t vectors = doubles.size() / 4;
  Mem floatBuffer = bufferWith(floats), doubleBuffer = bufferWith(doubles);
  Mem fromFloat = createBuffer(CL_MEM_READ_WRITE, vectors * 16 * sizeof(Half));
  Mem fromDouble = createBuffer(CL_MEM_READ_WRITE, vectors * 16 * sizeof(Half));
  ASSERT_TRUE(setArgs(kernel, floatBuffer, doubleBuffer, fromFloat, fromDouble));
  ASSERT_TRUE(run1D(kernel, vectors));
  std::vector<Half> floatResults = read<Half>(fromFloat, vectors * 16);
  std::vector<Half> doubleResults = read<Half>(fromDouble, vectors * 16);
  const char *modes[] = {"rte", "rtz", "rtp", "rtn"};
  for (size_t i = 0; i < doubles.size(); ++i) {
    size_t vector = i / 4, lane = i % 4;
    std::array<uint16_t, 4> fromF = roundedHalves(floats[i]), fromD = roundedHalves(doubles[i]);
    for (int mode = 0; mode < 4; ++mode) {
      Half f = floatResults[16 * vector + 4 * mode + lane], d = doubleResults[4 * i + mode];
      if (std::isnan(doubles[i])) {
        EXPECT_TRUE(isNan(f) && isNan(d)) << modes[mode];
        continue;
      }
      EXPECT_EQ(fromF[mode], bitsOf(f)) << "float " << floats[i] << " " << modes[mode];
      EXPECT_EQ(fromD[mode], bitsOf(d)) << "double " << doubles[i] << " " << modes[mode];
    }
  }
}

// Integers beyond half's range, both ways: the directed modes stop at the largest finite half.
TEST_F(HalfTest, WideIntegersRoundToTheLargestFiniteHalfOrInfinity) {
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void wide(global half *out) {
      long big = 1L << 62;
      out[0] = convert_half_rte(-big);
      out[1] = convert_half_rtp(-big);
      out[2] = convert_half_rtz(-big);
      out[3] = convert_half_rtn(-big);
      out[4] = convert_half_rtz(big);
      out[5] = convert_half_rtp(big);
      out[6] = convert_half_rtn((int)70000);
      out[7] = convert_half_rtp((uint)65504);
    })",
                              "wide");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, 8 * sizeof(Half));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 1));
  std::vector<Half> halves = read<Half>(out, 8);
  const uint16_t expected[] = {0xfc00, 0xfbff, 0xfbff, 0xfc00, 0x7bff, 0x7c00, 0x7bff, 0x7bff};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(expected[i], bitsOf(halves[i])) << i;
}

// fmod is exact: every half against partners of every kind, in scalars and vectors (a GPU has
// no instruction for it, and CUDA's math library no half one).
TEST_F(HalfTest, FmodIsExactForEveryHalf) {
  std::vector<Half> x = everyHalf();
  const Half partners[] = {Half(3.0f),       Half(-0.7f),    fromBits(0x0001) /* smallest */,
                           fromBits(0x7bff), Half(-1000.0f), Half(0x1p-10f),
                           Half(INFINITY),   Half(0.0f),     Half(NAN)};
  for (Half partner : partners) {
    std::vector<Half> y(x.size(), partner);
    std::vector<Half> out = runHalf(R"(
      kernel void remainders(global half *x, global half *y, global half *unused,
                             global half *out) {
        size_t i = get_global_id(0);
        out[2 * i] = fmod(x[i], y[i]);
        half4 v = fmod((half4)(x[i], 1, x[i], 2), (half4)(y[i], 1, 1, y[i]));
        half lane = fmod(x[i], (half)1); // v.z, checked too
        bool laneRight = v.z == lane || (isnan(v.z) && isnan(lane));
        out[2 * i + 1] = laneRight ? v.x : (half)-12345;
      })",
                                    "remainders", x, y, y, 2);
    ASSERT_EQ(x.size() * 2, out.size());
    int failures = 0;
    for (size_t i = 0; i < x.size() && failures < 10; ++i) {
      Half expected = Half(std::fmod(double(x[i]), double(partner)));
      for (int form = 0; form < 2; ++form) {
        Half got = out[2 * i + form];
        bool same = isNan(expected) ? isNan(got) : bitsOf(got) == bitsOf(expected);
        if (!same && ++failures <= 10)
          ADD_FAILURE() << "fmod(" << float(x[i]) << ", " << float(partner) << ") form " << form
                        << ": " << float(got) << ", expected " << float(expected);
      }
    }
  }
}

// The math builtins in half, within one ulp of the correctly rounded result (the
// specification allows two to four for these).
TEST_F(HalfTest, MathBuiltinsAreWithinOneUlp) {
  std::vector<Half> x, y;
  Random random;
  for (int i = 0; i < 3000; ++i) {
    x.push_back(Half(random.uniform(-8.0f, 8.0f)));
    y.push_back(Half(random.uniform(0.1f, 4.0f)));
  }
  std::vector<Half> out = runHalf(R"(
    kernel void functions(global half *x, global half *y, global half *unused, global half *out) {
      size_t i = get_global_id(0);
      half a = x[i], b = y[i];
      global half *o = out + 10 * i;
      o[0] = sin(a); o[1] = exp(a); o[2] = log(b); o[3] = pow(b, a); o[4] = hypot(a, b);
      o[5] = atan2(a, b); o[6] = cbrt(a); o[7] = erf(a); o[8] = tanh(a); o[9] = rsqrt(b);
    })",
                                  "functions", x, y, y, 10);
  ASSERT_EQ(x.size() * 10, out.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double a = double(x[i]), b = double(y[i]);
    double reference[] = {std::sin(a),      std::exp(a),      std::log(b),  std::pow(b, a),
                          std::hypot(a, b), std::atan2(a, b), std::cbrt(a), std::erf(a),
                          std::tanh(a),     1 / std::sqrt(b)};
    for (int f = 0; f < 10; ++f)
      EXPECT_LE(ulpsApart(out[10 * i + f], Half(reference[f])), 1)
          << "function " << f << " of " << a << ", " << b << ": " << float(out[10 * i + f]);
  }
}

TEST_F(HalfTest, BuiltinsWithSecondResults) {
  std::vector<Half> x = {Half(5.75f),      Half(-0.375f), Half(1000.0f),
                         fromBits(0x0003), Half(-3.0f),   Half(INFINITY)};
  std::vector<Half> y(x.size(), Half(1.5f));
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void seconds(global half *x, global half *y, global half *out, global int *ints) {
      size_t i = get_global_id(0);
      half whole, cosine;
      int e, quo;
      out[4 * i + 0] = frexp(x[i], &e);
      ints[2 * i] = e;
      out[4 * i + 1] = modf(x[i], &whole) + whole * (half)0;
      out[4 * i + 2] = remquo(x[i], y[i], &quo);
      ints[2 * i + 1] = quo & 3;
      out[4 * i + 3] = sincos(x[i], &cosine) * (half)0 + cosine;
    })",
                              "seconds");
  ASSERT_NE(nullptr, kernel.get());
  Mem xb = bufferWith(x), yb = bufferWith(y);
  Mem out = createBuffer(CL_MEM_READ_WRITE, x.size() * 4 * sizeof(Half));
  Mem ints = createBuffer(CL_MEM_READ_WRITE, x.size() * 2 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, xb, yb, out, ints));
  ASSERT_TRUE(run1D(kernel, x.size()));
  std::vector<Half> halves = read<Half>(out, x.size() * 4);
  std::vector<cl_int> integers = read<cl_int>(ints, x.size() * 2);
  for (size_t i = 0; i < x.size(); ++i) {
    double a = double(x[i]);
    if (std::isinf(a))
      continue;
    int e = 0;
    double mantissa = std::frexp(a, &e);
    EXPECT_EQ(float(Half(mantissa)), float(halves[4 * i])) << a;
    EXPECT_EQ(e, integers[2 * i]) << a;
    double whole = 0;
    EXPECT_EQ(float(Half(std::modf(a, &whole))), float(halves[4 * i + 1])) << a;
    int quo = 0;
    EXPECT_EQ(float(Half(std::remquo(a, 1.5, &quo))), float(halves[4 * i + 2])) << a;
    EXPECT_EQ(quo & 3, integers[2 * i + 1]) << a;
    EXPECT_LE(ulpsApart(halves[4 * i + 3], Half(std::cos(a))), 1) << a;
  }
}

// The results that do not fit half's own integer size, and exponents far outside its range.
TEST_F(HalfTest, IlogbAndLdexpAtTheirExtremes) {
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void extremes(global half *out, global int *ints) {
      ints[0] = ilogb((half)0);
      ints[1] = ilogb((half)INFINITY);
      ints[2] = ilogb((half)NAN);
      ints[3] = FP_ILOGBNAN; // the device's (the host's may differ)
      int4 v = ilogb((half4)(0, 1, INFINITY, 0x1p-24));
      vstore4(v, 1, ints);
      out[0] = ldexp((half)-0.9125h, -1888531162);
      out[1] = ldexp((half)1, 100);
      out[2] = ldexp((half)0x1p-20h, -4);
      out[3] = ldexp((half)3, 2);
    })",
                              "extremes");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, 4 * sizeof(Half));
  Mem ints = createBuffer(CL_MEM_READ_WRITE, 8 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, out, ints));
  ASSERT_TRUE(run1D(kernel, 1));
  std::vector<cl_int> integers = read<cl_int>(ints, 8);
  EXPECT_EQ(FP_ILOGB0, integers[0]);
  EXPECT_EQ(INT32_MAX, integers[1]);
  EXPECT_EQ(integers[3], integers[2]);
  EXPECT_EQ((std::vector<cl_int>{FP_ILOGB0, 0, INT32_MAX, -24}),
            std::vector<cl_int>(integers.begin() + 4, integers.end()));
  std::vector<Half> halves = read<Half>(out, 4);
  EXPECT_EQ(0x8000, bitsOf(halves[0]));
  EXPECT_EQ(0x7c00, bitsOf(halves[1]));
  EXPECT_EQ(0x0001, bitsOf(halves[2])); // 2^-24, the smallest subnormal
  EXPECT_EQ(12.0f, float(halves[3]));
}

// A half vector the builtin library stores into private memory, read back as halves by the
// program (the library's accesses must not be taken to miss the program's).
TEST_F(HalfTest, VstoreIntoPrivateMemoryIsSeenByHalfLoads) {
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void roundTrip(global half *src, global half *dst) {
      private half3 storage[4];
      int tid = get_global_id(0);
      storage[tid] = (half3)0;
      vstore3(vload3(tid, src), 0, (private half *)storage);
      private half *p = (private half *)storage;
      for (int i = 0; i < 3; i++)
        dst[3 * tid + i] = p[i];
    })",
                              "roundTrip");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<Half> in = {Half(1.0f), Half(2.0f), Half(3.0f), Half(4.0f), Half(5.0f), Half(6.0f)};
  Mem src = bufferWith(in);
  Mem dst = bufferWith(std::vector<Half>(6, Half(0.0f)));
  ASSERT_TRUE(setArgs(kernel, src, dst));
  ASSERT_TRUE(run1D(kernel, 2, 1));
  std::vector<Half> out = read<Half>(dst, 6);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(float(in[i]), float(out[i])) << i;
}

TEST_F(HalfTest, HalfArgumentsVectorsAndReductions) {
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void reduce(global const half *in, half scale, global half *sums, global half4 *vec) {
      size_t i = get_global_id(0);
      half v = in[i] * scale;
      half group = work_group_reduce_add(v);
      half sub = sub_group_reduce_max(v);
      if (get_local_id(0) == 0)
        sums[get_group_id(0)] = group;
      if (get_sub_group_local_id() == 0)
        sums[16 + get_group_id(0) * get_num_sub_groups() + get_sub_group_id()] = sub;
      if (i == 0) {
        vstore4(vload4(0, in) * scale, 0, (global half *)vec);
        sums[15] = (half)get_sub_group_size();
      }
    })",
                              "reduce", "-cl-std=CL3.0");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<Half> in(256);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = Half(float(i % 16) * 0.25f);
  Mem inBuffer = bufferWith(in);
  Mem sums = bufferWith(std::vector<Half>(16 + 256, Half(0.0f)));
  Mem vec = createBuffer(CL_MEM_READ_WRITE, 4 * sizeof(Half));
  Half scale = Half(2.0f);
  ASSERT_TRUE(setArgs(kernel, inBuffer, scale, sums, vec));
  ASSERT_TRUE(run1D(kernel, 256, 64));
  std::vector<Half> result = read<Half>(sums, 16 + 256);
  for (int group = 0; group < 4; ++group)
    EXPECT_EQ(2.0f * 0.25f * 120.0f * 4, float(result[group])) << group; // 4 x (0..15)
  // Sub-group 0 holds work-items 0 to size - 1: the largest of 2 * 0.25 * (i % 16) there.
  int firstSubGroup = std::min(int(float(result[15])), 16);
  EXPECT_EQ(0.5f * float(firstSubGroup - 1), float(result[16]));
  std::vector<Half> v = read<Half>(vec, 4);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(float(in[i]) * 2, float(v[i]));
}

// CLBlast's HGEMM: an OpenCL C 1.2 program (no -cl-std) shuffling halves with cl_intel_subgroups,
// and the cl_khr_subgroups functions over half.
TEST_F(HalfTest, SubGroupFunctionsTakeHalfInOpenClC12) {
  if (!hasExtension(device_, "cl_intel_subgroups"))
    GTEST_SKIP() << "no cl_intel_subgroups";
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void shuffles(global const half *in, global half *out) {
      size_t i = get_global_id(0);
      uint lane = get_sub_group_local_id(), size = get_sub_group_size();
      half x = in[i];
      half2 pair = (half2)(x, -x);
      out[4 * i] = intel_sub_group_shuffle(x, (lane + 1) % size);
      out[4 * i + 1] = intel_sub_group_shuffle_xor(pair, 1u).y;
      out[4 * i + 2] = sub_group_reduce_add(x);
      out[4 * i + 3] = sub_group_broadcast(x, 0u);
    })",
                              "shuffles");
  ASSERT_NE(nullptr, kernel.get());
  constexpr size_t count = 64;
  std::vector<Half> in(count);
  for (size_t i = 0; i < count; ++i)
    in[i] = Half(float(i % 8) * 0.5f);
  Mem inBuffer = bufferWith(in);
  Mem out = createBuffer(CL_MEM_READ_WRITE, 4 * count * sizeof(Half));
  ASSERT_TRUE(setArgs(kernel, inBuffer, out));
  ASSERT_TRUE(run1D(kernel, count, count));
  size_t size = 0;
  ASSERT_CL_SUCCESS(clGetKernelSubGroupInfo(kernel, device_,
                                            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof count,
                                            &count, sizeof size, &size, nullptr));
  ASSERT_GT(size, 0u);
  std::vector<Half> result = read<Half>(out, 4 * count);
  for (size_t i = 0; i < count; ++i) {
    size_t first = i / size * size, lane = i % size;
    float sum = 0;
    for (size_t j = first; j < first + size; ++j)
      sum += float(in[j]);
    EXPECT_EQ(float(in[first + (lane + 1) % size]), float(result[4 * i])) << i;
    if ((lane ^ 1) < size) // a lane of the sub-group (sub-groups of one work-item have none)
      EXPECT_EQ(-float(in[first + (lane ^ 1)]), float(result[4 * i + 1])) << i;
    EXPECT_EQ(sum, float(result[4 * i + 2])) << i;
    EXPECT_EQ(float(in[first]), float(result[4 * i + 3])) << i;
  }
}

TEST_F(HalfTest, ImagesReadAndWriteHalf) {
  if (!deviceInfo<cl_bool>(device_, CL_DEVICE_IMAGE_SUPPORT))
    GTEST_SKIP() << "no images";
  Kernel kernel = buildKernel(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void copy(read_only image2d_t in, write_only image2d_t out) {
      int2 at = (int2)(get_global_id(0), get_global_id(1));
      write_imageh(out, at, read_imageh(in, at) * (half)2);
    })",
                              "copy");
  ASSERT_NE(nullptr, kernel.get());
  cl_image_format format = {CL_RGBA, CL_HALF_FLOAT};
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 8;
  desc.image_height = 4;
  std::vector<Half> pixels(8 * 4 * 4);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = Half(float(i) * 0.125f - 3.0f);
  cl_int error = CL_SUCCESS;
  Mem in(clCreateImage(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                       pixels.data(), &error));
  ASSERT_CL_SUCCESS(error);
  Mem out(clCreateImage(context_, CL_MEM_WRITE_ONLY, &format, &desc, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_TRUE(setArgs(kernel, in, out));
  size_t global[2] = {8, 4};
  ASSERT_TRUE(run(kernel, 2, global));
  std::vector<Half> result(pixels.size());
  size_t origin[3] = {0, 0, 0}, region[3] = {8, 4, 1};
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, out, CL_TRUE, origin, region, 0, 0, result.data(), 0,
                                       nullptr, nullptr));
  for (size_t i = 0; i < pixels.size(); ++i)
    EXPECT_EQ(float(pixels[i]) * 2, float(result[i])) << i;
}

} // namespace
