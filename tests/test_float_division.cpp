// Float divisions of small integers by constants, the way normalized image channels and
// hand-normalized bytes divide: the CPU device computes those whose every quotient it checked
// at compile time as a reciprocal's product and a correction
// (devices/cpu/codegen/optimization/reciprocal_division.hpp). Each quotient must still be the
// correctly rounded one, bit for bit, as the host divides, for every value of the dividend;
// dividends of more bits and other divisors keep their divisions and must agree too.
#include "cl_test.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

using namespace cltest;

namespace {

class FloatDivisionTest : public ClTest {};

constexpr int kQuotients = 10;

const char *kDivisionSource = R"(
  kernel void divide(global const int *in, global float *out, uint n) {
    size_t i = get_global_id(0);
    int x = in[i];
    uchar byte = (uchar)x;
    char signedByte = (char)x;
    ushort tenBits = x & 1023, twelveBits = x & 4095, sixteenBits = (ushort)x;
    out[i] = byte / 255.0f;
    out[n + i] = signedByte / 127.0f;
    out[2 * n + i] = tenBits / 1023.0f;
    out[3 * n + i] = twelveBits / 7.0f;
    out[4 * n + i] = byte / -3.0f;
    out[5 * n + i] = byte / 0.1f;
    out[6 * n + i] = sixteenBits / 65535.0f;
    out[7 * n + i] = twelveBits / 1e-3f;
    out[8 * n + i] = signedByte / 3e7f;
    out[9 * n + i] = convert_float(byte) / 31.0f;
  }
)";

/// The host's quotients, in the kernel's order: the default floating-point environment rounds
/// each to nearest.
std::vector<float> hostQuotients(const std::vector<int> &inputs) {
  const size_t n = inputs.size();
  std::vector<float> quotients(kQuotients * n);
  for (size_t i = 0; i < n; ++i) {
    int x = inputs[i];
    auto byte = static_cast<uint8_t>(x);
    auto signedByte = static_cast<int8_t>(x);
    auto tenBits = static_cast<uint16_t>(x & 1023), twelveBits = static_cast<uint16_t>(x & 4095),
         sixteenBits = static_cast<uint16_t>(x);
    const float row[kQuotients] = {byte / 255.0f,          signedByte / 127.0f,
                                   tenBits / 1023.0f,      twelveBits / 7.0f,
                                   byte / -3.0f,           byte / 0.1f,
                                   sixteenBits / 65535.0f, twelveBits / 1e-3f,
                                   signedByte / 3e7f,      static_cast<float>(byte) / 31.0f};
    for (int q = 0; q < kQuotients; ++q)
      quotients[q * n + i] = row[q];
  }
  return quotients;
}

TEST_F(FloatDivisionTest, SmallIntegersDividedByConstantsAreCorrectlyRounded) {
  auto config = deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_SINGLE_FP_CONFIG);
  if ((config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) == 0)
    GTEST_SKIP() << "the device divides within 2.5 ulp only";
  std::vector<int> inputs(65536);
  for (size_t i = 0; i < inputs.size(); ++i)
    inputs[i] = static_cast<int>(i) - 32768; // every byte, signed byte and 16-bit value
  const size_t n = inputs.size();
  Program program = build(kDivisionSource, "-cl-fp32-correctly-rounded-divide-sqrt");
  ASSERT_NE(program, nullptr);
  Kernel kernel = createKernel(program, "divide");
  ASSERT_NE(kernel, nullptr);
  Mem in = bufferWith(inputs);
  Mem out = createBuffer(CL_MEM_READ_WRITE, kQuotients * n * sizeof(float));
  ASSERT_TRUE(setArgs(kernel, in, out, static_cast<cl_uint>(n)));
  ASSERT_TRUE(run1D(kernel, n));
  std::vector<float> expected = hostQuotients(inputs), actual = read<float>(out, kQuotients * n);
  for (int q = 0; q < kQuotients; ++q) {
    int mismatches = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t want, got;
      std::memcpy(&want, &expected[q * n + i], 4);
      std::memcpy(&got, &actual[q * n + i], 4);
      if (want != got && ++mismatches <= 3)
        ADD_FAILURE() << "quotient " << q << " of " << inputs[i] << ": " << actual[q * n + i]
                      << ", not " << expected[q * n + i];
    }
    EXPECT_EQ(0, mismatches) << "quotient " << q;
  }
}

} // namespace
