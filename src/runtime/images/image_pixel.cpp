#include "runtime/images/image_pixel.hpp"

#include "runtime/images/image_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace kiln {
namespace {

/// Where each channel of an element comes from in (R, G, B, A): indices into the color.
std::array<int, 4> channelSources(cl_channel_order order) {
  switch (order) {
  case CL_A:
    return {3, -1, -1, -1};
  case CL_RA:
    return {0, 3, -1, -1};
  case CL_BGRA:
  case CL_sBGRA:
    return {2, 1, 0, 3};
  case CL_ARGB:
    return {3, 0, 1, 2};
  case CL_ABGR:
    return {3, 2, 1, 0};
  default: // R, RG, RGB, RGBA, INTENSITY, LUMINANCE, DEPTH, sRGBA: in order
    return {0, 1, 2, 3};
  }
}

/// round(value * scale) clamped to [low, high], NaN as 0 (convert_<type>_sat_rte).
int64_t normalize(float value, float scale, int64_t low, int64_t high) {
  if (std::isnan(value))
    return 0;
  double scaled = std::nearbyint(static_cast<double>(value) * scale); // ties to even
  return static_cast<int64_t>(std::clamp<double>(scaled, low, high));
}

/// The sRGB encoding of a linear value in [0, 1].
float linearToSrgb(float linear) {
  if (std::isnan(linear))
    return 0.0f;
  linear = std::clamp(linear, 0.0f, 1.0f);
  return linear <= 0.0031308f ? linear * 12.92f : 1.055f * std::pow(linear, 1.0f / 2.4f) - 0.055f;
}

template <typename T> void store(std::byte *to, T value) {
  std::memcpy(to, &value, sizeof value);
}

/// One channel of a non-packed type from a float (normalized, half, float types).
void storeFloatChannel(std::byte *to, cl_channel_type type, float value) {
  switch (type) {
  case CL_UNORM_INT8:
    return store(to, static_cast<uint8_t>(normalize(value, 255.0f, 0, 255)));
  case CL_UNORM_INT16:
    return store(to, static_cast<uint16_t>(normalize(value, 65535.0f, 0, 65535)));
  case CL_SNORM_INT8:
    return store(to, static_cast<int8_t>(normalize(value, 127.0f, -128, 127)));
  case CL_SNORM_INT16:
    return store(to, static_cast<int16_t>(normalize(value, 32767.0f, -32768, 32767)));
  case CL_HALF_FLOAT:
    return store(to, static_cast<_Float16>(value)); // rounds to nearest even
  default:                                          // CL_FLOAT
    return store(to, value);
  }
}

/// One channel of an integer type, saturated.
void storeIntegerChannel(std::byte *to, cl_channel_type type, int64_t value) {
  auto saturate = [&](int64_t low, int64_t high) { return std::clamp(value, low, high); };
  switch (type) {
  case CL_SIGNED_INT8:
    return store(to, static_cast<int8_t>(saturate(INT8_MIN, INT8_MAX)));
  case CL_SIGNED_INT16:
    return store(to, static_cast<int16_t>(saturate(INT16_MIN, INT16_MAX)));
  case CL_SIGNED_INT32:
    return store(to, static_cast<int32_t>(saturate(INT32_MIN, INT32_MAX)));
  case CL_UNSIGNED_INT8:
    return store(to, static_cast<uint8_t>(saturate(0, UINT8_MAX)));
  case CL_UNSIGNED_INT16:
    return store(to, static_cast<uint16_t>(saturate(0, UINT16_MAX)));
  default: // CL_UNSIGNED_INT32
    return store(to, static_cast<uint32_t>(saturate(0, UINT32_MAX)));
  }
}

/// The packed RGB types: each channel scaled to its bits, red highest.
uint32_t packRgb(cl_channel_type type, const float *rgb) {
  switch (type) {
  case CL_UNORM_SHORT_565:
    return normalize(rgb[0], 31.0f, 0, 31) << 11 | normalize(rgb[1], 63.0f, 0, 63) << 5 |
           normalize(rgb[2], 31.0f, 0, 31);
  case CL_UNORM_SHORT_555:
    return normalize(rgb[0], 31.0f, 0, 31) << 10 | normalize(rgb[1], 31.0f, 0, 31) << 5 |
           normalize(rgb[2], 31.0f, 0, 31);
  default: // CL_UNORM_INT_101010
    return normalize(rgb[0], 1023.0f, 0, 1023) << 20 | normalize(rgb[1], 1023.0f, 0, 1023) << 10 |
           normalize(rgb[2], 1023.0f, 0, 1023);
  }
}

bool isSignedInteger(cl_channel_type type) {
  return type == CL_SIGNED_INT8 || type == CL_SIGNED_INT16 || type == CL_SIGNED_INT32;
}
bool isUnsignedInteger(cl_channel_type type) {
  return type == CL_UNSIGNED_INT8 || type == CL_UNSIGNED_INT16 || type == CL_UNSIGNED_INT32;
}

} // namespace

std::array<std::byte, 16> packImageElement(const cl_image_format &format, const void *color) {
  std::array<std::byte, 16> element{};
  cl_channel_type type = format.image_channel_data_type;
  cl_channel_order order = format.image_channel_order;
  if (type == CL_UNORM_SHORT_565 || type == CL_UNORM_SHORT_555) {
    store(element.data(), static_cast<uint16_t>(packRgb(type, static_cast<const float *>(color))));
    return element;
  }
  if (type == CL_UNORM_INT_101010) {
    store(element.data(), packRgb(type, static_cast<const float *>(color)));
    return element;
  }
  size_t channelBytes = imageElementSize(format) / channelCount(order);
  std::array<int, 4> sources = channelSources(order);
  bool srgb = order == CL_sRGBA || order == CL_sBGRA || order == CL_sRGB || order == CL_sRGBx;
  for (unsigned channel = 0; channel < channelCount(order); ++channel) {
    std::byte *to = element.data() + channel * channelBytes;
    int source = sources[channel];
    if (isSignedInteger(type)) {
      storeIntegerChannel(to, type, static_cast<const cl_int *>(color)[source]);
    } else if (isUnsignedInteger(type)) {
      storeIntegerChannel(to, type, static_cast<const cl_uint *>(color)[source]);
    } else {
      float value = static_cast<const float *>(color)[source];
      if (srgb && source != 3) // alpha stays linear
        value = linearToSrgb(value);
      storeFloatChannel(to, type, value);
    }
  }
  return element;
}

} // namespace kiln
