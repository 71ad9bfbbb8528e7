#include "runtime/images/image_format.hpp"

#include <algorithm>
#include <initializer_list>

namespace kiln {
namespace {

constexpr std::initializer_list<cl_channel_type> kNormalTypes = {
    CL_SNORM_INT8,     CL_SNORM_INT16,    CL_UNORM_INT8,   CL_UNORM_INT16,
    CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,   CL_FLOAT};
constexpr std::initializer_list<cl_channel_type> kPackedRgbTypes = {
    CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010};
constexpr std::initializer_list<cl_channel_type> kByteTypes = {CL_UNORM_INT8, CL_SNORM_INT8,
                                                               CL_SIGNED_INT8, CL_UNSIGNED_INT8};
constexpr std::initializer_list<cl_channel_type> kLuminanceTypes = {
    CL_UNORM_INT8, CL_UNORM_INT16, CL_SNORM_INT8, CL_SNORM_INT16, CL_HALF_FLOAT, CL_FLOAT};
constexpr std::initializer_list<cl_channel_type> kDepthTypes = {CL_UNORM_INT16, CL_FLOAT};
constexpr std::initializer_list<cl_channel_type> kSrgbTypes = {CL_UNORM_INT8};

/// The data types the specification allows with `order` (empty for an unknown order).
std::initializer_list<cl_channel_type> typesOf(cl_channel_order order) {
  switch (order) {
  case CL_R:
  case CL_A:
  case CL_RG:
  case CL_RA:
  case CL_RGBA:
  case CL_Rx:
  case CL_RGx:
    return kNormalTypes;
  case CL_RGB:
  case CL_RGBx:
    return kPackedRgbTypes;
  case CL_BGRA:
  case CL_ARGB:
  case CL_ABGR:
    return kByteTypes;
  case CL_INTENSITY:
  case CL_LUMINANCE:
    return kLuminanceTypes;
  case CL_DEPTH:
    return kDepthTypes;
  case CL_sRGB:
  case CL_sRGBx:
  case CL_sRGBA:
  case CL_sBGRA:
    return kSrgbTypes;
  default:
    return {};
  }
}

size_t channelTypeSize(cl_channel_type type) {
  switch (type) {
  case CL_SNORM_INT8:
  case CL_UNORM_INT8:
  case CL_SIGNED_INT8:
  case CL_UNSIGNED_INT8:
    return 1;
  case CL_SNORM_INT16:
  case CL_UNORM_INT16:
  case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16:
  case CL_HALF_FLOAT:
    return 2;
  default:
    return 4;
  }
}

bool isPacked(cl_channel_type type) {
  return type == CL_UNORM_SHORT_565 || type == CL_UNORM_SHORT_555 || type == CL_UNORM_INT_101010;
}

/// The orders Kiln stores, each with every type the specification allows for it.
constexpr cl_channel_order kHostOrders[] = {CL_R,         CL_A,     CL_RG,    CL_RA,   CL_RGB,
                                            CL_RGBA,      CL_BGRA,  CL_ARGB,  CL_ABGR, CL_INTENSITY,
                                            CL_LUMINANCE, CL_DEPTH, CL_sRGBA, CL_sBGRA};

} // namespace

bool sameFormat(const cl_image_format &left, const cl_image_format &right) {
  return left.image_channel_order == right.image_channel_order &&
         left.image_channel_data_type == right.image_channel_data_type;
}

bool isValidImageFormat(const cl_image_format &format) {
  auto types = typesOf(format.image_channel_order);
  return std::find(types.begin(), types.end(), format.image_channel_data_type) != types.end();
}

unsigned channelCount(cl_channel_order order) {
  switch (order) {
  case CL_RG:
  case CL_RA:
  case CL_RGx:
    return 2;
  case CL_RGB:
  case CL_RGBx:
  case CL_sRGB:
  case CL_sRGBx:
    return 3;
  case CL_RGBA:
  case CL_BGRA:
  case CL_ARGB:
  case CL_ABGR:
  case CL_sRGBA:
  case CL_sBGRA:
    return 4;
  default:
    return 1;
  }
}

size_t imageElementSize(const cl_image_format &format) {
  if (isPacked(format.image_channel_data_type))
    return format.image_channel_data_type == CL_UNORM_INT_101010 ? 4 : 2;
  return channelCount(format.image_channel_order) * channelTypeSize(format.image_channel_data_type);
}

std::vector<cl_image_format> hostImageFormats(cl_mem_object_type type, cl_mem_flags flags) {
  bool writes = (flags & (CL_MEM_WRITE_ONLY | CL_MEM_KERNEL_READ_AND_WRITE)) != 0 ||
                (flags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)) == 0;
  bool depthAllowed = type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  std::vector<cl_image_format> formats;
  for (cl_channel_order order : kHostOrders) {
    if (order == CL_DEPTH && !depthAllowed)
      continue; // cl_khr_depth_images: 2D images and 2D arrays only
    bool srgb = order == CL_sRGBA || order == CL_sBGRA;
    if (srgb && writes)
      continue; // writing sRGB images needs cl_khr_srgb_image_writes
    for (cl_channel_type channelType : typesOf(order))
      formats.push_back({order, channelType});
  }
  return formats;
}

} // namespace kiln
