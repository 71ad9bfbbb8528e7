// Float computations on small integers that come back to integers: the CPU device replaces
// those whose result is an affine function of the integer for every value it can take
// (optimization/float_round_trips.hpp) and keeps the others. Each result is checked against the
// host's IEEE single-precision arithmetic for every input, folded or not.
#include "cl_test.hpp"

#include <cmath>

using namespace cltest;

namespace {

class FloatRoundTripsTest : public ClTest {};

const char *kSource = R"(
  kernel void roundTrips(global const uchar *bytes, global const short *shorts,
                         global int *out) {
    size_t i = get_global_id(0);
    float b = bytes[i];
    float normalized = b / 255.0f;
    global int *o = out + 6 * i;
    o[0] = convert_uint_rte(normalized * 255.0f);      // the byte itself
    o[1] = convert_uint_rte(normalized * 510.0f);      // twice the byte
    o[2] = convert_int_rtz(b * 0.5f);                  // half, rounded down: not affine
    o[3] = normalized * 255.0f >= 128.0f;              // a comparison that is not constant
    o[4] = convert_int_rte(normalized * 255.0f) < 256; // one that is
    float s = shorts[i];
    o[5] = convert_int_rte(s / 100.0f * 100.0f);       // a signed 12-bit input
  })";

TEST_F(FloatRoundTripsTest, ResultsMatchTheHostForEveryInput) {
  Kernel kernel = buildReportingKernel(kSource, "roundTrips");
  ASSERT_TRUE(kernel);
  const size_t count = 4096;
  std::vector<cl_uchar> bytes(count);
  std::vector<cl_short> shorts(count);
  for (size_t i = 0; i < count; ++i) {
    bytes[i] = static_cast<cl_uchar>(i * 7);
    shorts[i] = static_cast<cl_short>(static_cast<int>(i) - 2048);
  }
  Mem byteBuffer = bufferWith(bytes, CL_MEM_READ_ONLY);
  Mem shortBuffer = bufferWith(shorts, CL_MEM_READ_ONLY);
  Mem out = createBuffer(CL_MEM_WRITE_ONLY, 6 * count * sizeof(cl_int));
  ASSERT_TRUE(setArgs(kernel, byteBuffer, shortBuffer, out));
  std::string report = runCapturingStderr(kernel, count, 64);

  std::vector<cl_int> expected(6 * count);
  for (size_t i = 0; i < count; ++i) {
    volatile float b = bytes[i]; // IEEE single precision, one operation at a time
    volatile float normalized = b / 255.0f;
    volatile float byte = normalized * 255.0f, twice = normalized * 510.0f;
    cl_int *e = &expected[6 * i];
    e[0] = static_cast<cl_int>(std::nearbyint(byte));
    e[1] = static_cast<cl_int>(std::nearbyint(twice));
    e[2] = static_cast<cl_int>(std::trunc(b * 0.5f));
    e[3] = byte >= 128.0f;
    e[4] = static_cast<cl_int>(std::nearbyint(byte)) < 256;
    volatile float s = shorts[i];
    volatile float hundredths = s / 100.0f;
    volatile float back = hundredths * 100.0f;
    e[5] = static_cast<cl_int>(std::nearbyint(back));
  }
  EXPECT_TRUE(equalArrays(expected, read<cl_int>(out, 6 * count)));
  if (isKilnCpuDevice())
    EXPECT_NE(report.find("float computations on small integers"), std::string::npos)
        << "nothing was folded: " << report;
}

} // namespace
