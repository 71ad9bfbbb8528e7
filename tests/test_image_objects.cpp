// Images: supported formats, creation with every host-pointer flag and pitch, clGetImageInfo,
// reads, writes, fills and copies of regions, maps, samplers, and the errors for bad formats,
// descriptors, sizes and regions; in kernels, sampled reads against the specification's
// addressing and filtering rules, writes to each kind of format, queries and argument checks.
// They skip on a device without images.
#include "cl_test.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace cltest;

namespace {

constexpr cl_image_format kRgba8{CL_RGBA, CL_UNORM_INT8};
constexpr cl_image_format kRFloat{CL_R, CL_FLOAT};

class ImageObjectTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!deviceInfo<cl_bool>(device_, CL_DEVICE_IMAGE_SUPPORT))
      GTEST_SKIP() << "the device has no images";
  }

  static cl_image_desc describe(cl_mem_object_type type, size_t width, size_t height = 0,
                                size_t depthOrLayers = 0, size_t rowPitch = 0,
                                size_t slicePitch = 0) {
    cl_image_desc desc{};
    desc.image_type = type;
    desc.image_width = width;
    desc.image_height = height;
    if (type == CL_MEM_OBJECT_IMAGE3D)
      desc.image_depth = depthOrLayers;
    else
      desc.image_array_size = depthOrLayers;
    desc.image_row_pitch = rowPitch;
    desc.image_slice_pitch = slicePitch;
    return desc;
  }

  Mem image(cl_mem_flags flags, const cl_image_format &format, const cl_image_desc &desc,
            void *host = nullptr) {
    cl_int error = CL_SUCCESS;
    Mem created(clCreateImage(context_, flags, &format, &desc, host, &error));
    EXPECT_CL_SUCCESS(error);
    return created;
  }

  cl_int createError(cl_mem_flags flags, const cl_image_format *format, const cl_image_desc *desc,
                     void *host = nullptr) {
    cl_int error = CL_SUCCESS;
    Mem created(clCreateImage(context_, flags, format, desc, host, &error));
    EXPECT_EQ(error == CL_SUCCESS, created.get() != nullptr);
    return error;
  }

  template <typename T> T imageInfo(cl_mem mem, cl_image_info param) {
    return queryValue<T>(
        [&](size_t s, void *v, size_t *r) { return clGetImageInfo(mem, param, s, v, r); });
  }
};

TEST_F(ImageObjectTest, SupportedFormatsIncludeTheRequiredOnes) {
  for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE}) {
    cl_uint count = 0;
    ASSERT_CL_SUCCESS(
        clGetSupportedImageFormats(context_, flags, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &count));
    std::vector<cl_image_format> formats(count);
    ASSERT_CL_SUCCESS(clGetSupportedImageFormats(context_, flags, CL_MEM_OBJECT_IMAGE2D, count,
                                                 formats.data(), nullptr));
    auto has = [&](cl_channel_order order, cl_channel_type type) {
      return std::any_of(formats.begin(), formats.end(), [&](const cl_image_format &format) {
        return format.image_channel_order == order && format.image_channel_data_type == type;
      });
    };
    for (cl_channel_type type : {CL_UNORM_INT8, CL_UNORM_INT16, CL_SNORM_INT8, CL_SNORM_INT16,
                                 CL_SIGNED_INT8, CL_SIGNED_INT16, CL_SIGNED_INT32, CL_UNSIGNED_INT8,
                                 CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT, CL_FLOAT}) {
      EXPECT_TRUE(has(CL_RGBA, type)) << "flags " << flags << " type " << type;
      EXPECT_TRUE(has(CL_R, type)) << "flags " << flags << " type " << type;
    }
    EXPECT_TRUE(has(CL_BGRA, CL_UNORM_INT8));
  }
  // Depth images are two-dimensional only.
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D, 0,
                                               nullptr, &count));
  std::vector<cl_image_format> formats(count);
  ASSERT_CL_SUCCESS(clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D,
                                               count, formats.data(), nullptr));
  for (const cl_image_format &format : formats)
    EXPECT_NE(cl_channel_order(CL_DEPTH), format.image_channel_order);
}

TEST_F(ImageObjectTest, InfoDescribesTheImage) {
  Mem image3d = image(CL_MEM_READ_WRITE, kRgba8, describe(CL_MEM_OBJECT_IMAGE3D, 5, 4, 3));
  ASSERT_TRUE(image3d);
  EXPECT_EQ(4u, imageInfo<size_t>(image3d, CL_IMAGE_ELEMENT_SIZE));
  EXPECT_EQ(5u, imageInfo<size_t>(image3d, CL_IMAGE_WIDTH));
  EXPECT_EQ(4u, imageInfo<size_t>(image3d, CL_IMAGE_HEIGHT));
  EXPECT_EQ(3u, imageInfo<size_t>(image3d, CL_IMAGE_DEPTH));
  EXPECT_EQ(0u, imageInfo<size_t>(image3d, CL_IMAGE_ARRAY_SIZE));
  EXPECT_GE(imageInfo<size_t>(image3d, CL_IMAGE_ROW_PITCH), 20u);
  EXPECT_GE(imageInfo<size_t>(image3d, CL_IMAGE_SLICE_PITCH), 80u);
  EXPECT_EQ(cl_mem_object_type(CL_MEM_OBJECT_IMAGE3D),
            memInfo<cl_mem_object_type>(image3d, CL_MEM_TYPE));
  cl_image_format format = imageInfo<cl_image_format>(image3d, CL_IMAGE_FORMAT);
  EXPECT_EQ(kRgba8.image_channel_order, format.image_channel_order);
  EXPECT_EQ(kRgba8.image_channel_data_type, format.image_channel_data_type);

  Mem array1d = image(0, kRFloat, describe(CL_MEM_OBJECT_IMAGE1D_ARRAY, 7, 0, 9));
  ASSERT_TRUE(array1d);
  EXPECT_EQ(0u, imageInfo<size_t>(array1d, CL_IMAGE_HEIGHT));
  EXPECT_EQ(9u, imageInfo<size_t>(array1d, CL_IMAGE_ARRAY_SIZE));
  // Image info of a buffer is refused.
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  size_t width = 0;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clGetImageInfo(buffer, CL_IMAGE_WIDTH, sizeof width, &width, nullptr));
}

TEST_F(ImageObjectTest, RegionsReadBackWhatWasWrittenWithAnyPitches) {
  // A 3D image created from host memory with padded rows and slices.
  const size_t width = 6, height = 5, depth = 4, rowPitch = 32, slicePitch = 192;
  std::vector<cl_uchar> host(slicePitch * depth);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<cl_uchar>(i * 7 + 3);
  Mem image3d = image(CL_MEM_COPY_HOST_PTR, kRgba8,
                      describe(CL_MEM_OBJECT_IMAGE3D, width, height, depth, rowPitch, slicePitch),
                      host.data());
  ASSERT_TRUE(image3d);
  // Read an inner region packed.
  const size_t origin[] = {1, 2, 1}, region[] = {4, 3, 2};
  std::vector<cl_uchar> read(region[0] * 4 * region[1] * region[2]);
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, image3d, CL_TRUE, origin, region, 0, 0, read.data(),
                                       0, nullptr, nullptr));
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      for (size_t byte = 0; byte < region[0] * 4; ++byte)
        ASSERT_EQ(
            host[(origin[2] + z) * slicePitch + (origin[1] + y) * rowPitch + origin[0] * 4 + byte],
            read[(z * region[1] + y) * region[0] * 4 + byte])
            << z << "," << y << "," << byte;
  // Write it back one element to the right with the application's own pitches, and read all.
  const size_t moved[] = {2, 2, 1};
  ASSERT_CL_SUCCESS(clEnqueueWriteImage(queue_, image3d, CL_TRUE, moved, region, 0, 0, read.data(),
                                        0, nullptr, nullptr));
  std::vector<cl_uchar> all(width * 4 * height * depth);
  const size_t zero[] = {0, 0, 0}, whole[] = {width, height, depth};
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, image3d, CL_TRUE, zero, whole, 0, 0, all.data(), 0,
                                       nullptr, nullptr));
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y)
      for (size_t x = 0; x < width; ++x)
        for (size_t c = 0; c < 4; ++c) {
          bool inMoved = x >= moved[0] && x < moved[0] + region[0] && y >= moved[1] &&
                         y < moved[1] + region[1] && z >= moved[2] && z < moved[2] + region[2];
          size_t sx = inMoved ? x - moved[0] + origin[0] : x;
          size_t sy = inMoved ? y - moved[1] + origin[1] : y;
          size_t sz = inMoved ? z - moved[2] + origin[2] : z;
          ASSERT_EQ(host[sz * slicePitch + sy * rowPitch + sx * 4 + c],
                    all[((z * height + y) * width + x) * 4 + c]);
        }
}

TEST_F(ImageObjectTest, OneDimensionalArraysCountLayersInTheSecondCoordinate) {
  const size_t width = 8, layers = 5;
  std::vector<float> data(width * layers);
  std::iota(data.begin(), data.end(), 0.5f);
  Mem array = image(CL_MEM_COPY_HOST_PTR, kRFloat,
                    describe(CL_MEM_OBJECT_IMAGE1D_ARRAY, width, 0, layers), data.data());
  ASSERT_TRUE(array);
  const size_t origin[] = {2, 1, 0}, region[] = {3, 3, 1};
  // The host side separates layers by its slice pitch.
  const size_t hostSlice = 64;
  std::vector<float> read(hostSlice / sizeof(float) * region[1], -1.0f);
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, array, CL_TRUE, origin, region, 0, hostSlice,
                                       read.data(), 0, nullptr, nullptr));
  for (size_t layer = 0; layer < region[1]; ++layer)
    for (size_t x = 0; x < region[0]; ++x)
      EXPECT_EQ(data[(origin[1] + layer) * width + origin[0] + x],
                read[layer * hostSlice / sizeof(float) + x]);
}

TEST_F(ImageObjectTest, CopiesBetweenImagesAndBuffers) {
  const size_t width = 9, height = 7;
  std::vector<cl_uint> pixels(width * height);
  std::iota(pixels.begin(), pixels.end(), 1000u);
  Mem source = image(CL_MEM_COPY_HOST_PTR, kRgba8, describe(CL_MEM_OBJECT_IMAGE2D, width, height),
                     pixels.data());
  Mem target = image(0, kRgba8, describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  ASSERT_TRUE(source && target);
  const size_t zero[] = {0, 0, 0}, whole[] = {width, height, 1};
  ASSERT_CL_SUCCESS(
      clEnqueueCopyImage(queue_, source, target, zero, zero, whole, 0, nullptr, nullptr));
  // Image to buffer, at an offset, packed.
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 16 + pixels.size() * 4);
  ASSERT_CL_SUCCESS(
      clEnqueueCopyImageToBuffer(queue_, target, buffer, zero, whole, 16, 0, nullptr, nullptr));
  std::vector<cl_uint> viaBuffer = read<cl_uint>(buffer, pixels.size(), 4);
  EXPECT_EQ(pixels, viaBuffer);
  // A region of the buffer back into a corner of the image.
  Mem back = image(0, kRgba8, describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  const size_t corner[] = {5, 4, 0}, small[] = {4, 3, 1};
  ASSERT_CL_SUCCESS(
      clEnqueueCopyBufferToImage(queue_, buffer, back, 16, corner, small, 0, nullptr, nullptr));
  std::vector<cl_uint> cornerPixels(4 * 3);
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, back, CL_TRUE, corner, small, 0, 0,
                                       cornerPixels.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < cornerPixels.size(); ++i)
    EXPECT_EQ(pixels[i], cornerPixels[i]) << i;

  // Errors: other formats, overlapping regions of one image, regions out of range.
  Mem floats = image(0, kRFloat, describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  EXPECT_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH, clEnqueueCopyImage(queue_, source, floats, zero, zero,
                                                               whole, 0, nullptr, nullptr));
  const size_t shifted[] = {1, 0, 0}, wide[] = {4, 2, 1};
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP, clEnqueueCopyImage(queue_, source, source, zero, shifted,
                                                          wide, 0, nullptr, nullptr));
  const size_t tooFar[] = {6, 0, 0};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueCopyImage(queue_, source, target, tooFar, zero, wide,
                                                       0, nullptr, nullptr));
  const size_t flat[] = {4, 2, 2};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueCopyImage(queue_, source, target, zero, zero, flat, 0,
                                                       nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueCopyImageToBuffer(queue_, source, buffer, zero, whole,
                                                               32, 0, nullptr, nullptr));
  // Images are no buffers and buffers no images.
  cl_uint word = 0;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueReadBuffer(queue_, source, CL_TRUE, 0, 4, &word, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clEnqueueReadImage(queue_, buffer, CL_TRUE, zero, small, 0,
                                                            0, &word, 0, nullptr, nullptr));
}

TEST_F(ImageObjectTest, MapsOfHostPointerImagesAreTheApplicationsMemory) {
  const size_t width = 4, height = 3, rowPitch = 24;
  std::vector<cl_uchar> host(rowPitch * height, 0);
  Mem mapped = image(CL_MEM_USE_HOST_PTR, kRgba8,
                     describe(CL_MEM_OBJECT_IMAGE2D, width, height, 0, rowPitch), host.data());
  ASSERT_TRUE(mapped);
  EXPECT_EQ(rowPitch, imageInfo<size_t>(mapped, CL_IMAGE_ROW_PITCH));
  const size_t origin[] = {1, 2, 0}, region[] = {2, 1, 1};
  size_t pitch = 0;
  cl_int error = CL_SUCCESS;
  void *pointer = clEnqueueMapImage(queue_, mapped, CL_TRUE, CL_MAP_WRITE, origin, region, &pitch,
                                    nullptr, 0, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(rowPitch, pitch);
  EXPECT_EQ(host.data() + 2 * rowPitch + 4, pointer);
  static_cast<cl_uchar *>(pointer)[0] = 77;
  EXPECT_EQ(1u, memInfo<cl_uint>(mapped, CL_MEM_MAP_COUNT));
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, mapped, pointer, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(0u, memInfo<cl_uint>(mapped, CL_MEM_MAP_COUNT));
  cl_uint elements[2] = {};
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, mapped, CL_TRUE, origin, region, 0, 0, elements, 0,
                                       nullptr, nullptr));
  EXPECT_EQ(77u, elements[0] & 0xff);
}

TEST_F(ImageObjectTest, BadFormatsDescriptorsAndSizesGetTheSpecifiedErrors) {
  cl_image_desc plain = describe(CL_MEM_OBJECT_IMAGE2D, 16, 16);
  const cl_image_format wrongPair{CL_RGB, CL_UNORM_INT8}; // RGB takes packed types only
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, createError(0, &wrongPair, &plain));
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, createError(0, nullptr, &plain));
  const cl_image_format unknown{0x1234, CL_FLOAT};
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, createError(0, &unknown, &plain));
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR, createError(0, &kRgba8, nullptr));
  cl_image_desc mipmapped = plain;
  mipmapped.num_mip_levels = 2;
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR, createError(0, &kRgba8, &mipmapped));
  cl_image_desc badType = plain;
  badType.image_type = CL_MEM_OBJECT_BUFFER;
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR, createError(0, &kRgba8, &badType));
  cl_image_desc pitchWithoutHost = describe(CL_MEM_OBJECT_IMAGE2D, 16, 16, 0, 128);
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR, createError(0, &kRgba8, &pitchWithoutHost));
  std::vector<cl_uchar> host(64 * 16);
  cl_image_desc shortPitch = describe(CL_MEM_OBJECT_IMAGE2D, 16, 16, 0, 60);
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR,
                  createError(CL_MEM_COPY_HOST_PTR, &kRgba8, &shortPitch, host.data()));
  EXPECT_CL_ERROR(CL_INVALID_HOST_PTR, createError(CL_MEM_COPY_HOST_PTR, &kRgba8, &plain));
  EXPECT_CL_ERROR(CL_INVALID_HOST_PTR, createError(0, &kRgba8, &plain, host.data()));
  cl_image_desc empty = describe(CL_MEM_OBJECT_IMAGE2D, 0, 16);
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_SIZE, createError(0, &kRgba8, &empty));
  size_t maxWidth = deviceInfo<size_t>(device_, CL_DEVICE_IMAGE2D_MAX_WIDTH);
  cl_image_desc tooWide = describe(CL_MEM_OBJECT_IMAGE2D, maxWidth + 1, 1);
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_SIZE, createError(0, &kRgba8, &tooWide));
  const cl_image_format depth{CL_DEPTH, CL_FLOAT};
  cl_image_desc volume = describe(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4);
  EXPECT_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED, createError(0, &depth, &volume));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  createError(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &kRgba8, &plain));
  // A 1D buffer image needs a buffer large enough.
  Mem small = createBuffer(CL_MEM_READ_WRITE, 16);
  cl_image_desc overBuffer = describe(CL_MEM_OBJECT_IMAGE1D_BUFFER, 8);
  overBuffer.buffer = small.get();
  EXPECT_CL_ERROR(CL_INVALID_IMAGE_SIZE, createError(0, &kRgba8, &overBuffer));
  overBuffer.image_width = 4;
  Mem view = image(0, kRgba8, overBuffer);
  ASSERT_TRUE(view);
  EXPECT_EQ(small.get(), imageInfo<cl_mem>(view, CL_IMAGE_BUFFER));
  // Reads and writes out of the image.
  Mem image2d = image(0, kRgba8, plain);
  const size_t origin[] = {10, 0, 0}, region[] = {8, 1, 1}, bad3d[] = {1, 1, 2};
  cl_uint pixels[16];
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueReadImage(queue_, image2d, CL_TRUE, origin, region, 0,
                                                       0, pixels, 0, nullptr, nullptr));
  const size_t zero[] = {0, 0, 0};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueReadImage(queue_, image2d, CL_TRUE, zero, bad3d, 0, 0,
                                                       pixels, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueReadImage(queue_, image2d, CL_TRUE, zero, region, 4, 0,
                                                       pixels, 0, nullptr, nullptr));
}

TEST_F(ImageObjectTest, FillsConvertTheColorAsWritesDo) {
  struct Case {
    cl_image_format format;
    std::array<cl_uint, 4> color; // the bits of four floats, ints or uints
    std::vector<cl_uchar> element;
  };
  auto bits = [](float value) {
    cl_uint word;
    std::memcpy(&word, &value, sizeof word);
    return word;
  };
  auto bytesOf = [](auto value) {
    std::vector<cl_uchar> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
  };
  std::array<cl_uint, 4> mixed{bits(0.5f), bits(1.2f), bits(-0.1f), bits(0.25f)};
  const Case cases[] = {
      // 0.5 * 255 = 127.5 rounds to even: 128; 0.25 * 255 = 63.75: 64; out of range saturates.
      {{CL_RGBA, CL_UNORM_INT8}, mixed, {128, 255, 0, 64}},
      {{CL_BGRA, CL_UNORM_INT8}, mixed, {0, 255, 128, 64}},
      {{CL_ARGB, CL_UNORM_INT8}, mixed, {64, 128, 255, 0}},
      {{CL_RGBA, CL_SNORM_INT8}, mixed, {64, 127, static_cast<cl_uchar>(-13), 32}},
      {{CL_A, CL_UNORM_INT8}, mixed, {64}},
      {{CL_R, CL_FLOAT}, mixed, bytesOf(0.5f)},
      {{CL_R, CL_HALF_FLOAT}, {bits(1.0f), 0, 0, 0}, bytesOf(cl_ushort{0x3c00})},
      {{CL_R, CL_SIGNED_INT16}, {70000u, 0, 0, 0}, bytesOf(cl_short{32767})},
      {{CL_RG, CL_SIGNED_INT8}, {static_cast<cl_uint>(-200), 7u, 0, 0}, {0x80, 7}},
      {{CL_RGBA, CL_UNSIGNED_INT8}, {300u, 5u, 0u, 255u}, {255, 5, 0, 255}},
      // 565: red 31, green 0.5 * 63 = 31.5 to even: 32, blue 0.
      {{CL_RGB, CL_UNORM_SHORT_565},
       {bits(1.0f), bits(0.5f), bits(0.0f), 0},
       bytesOf(cl_ushort{31 << 11 | 32 << 5})},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << c.format.image_channel_order << " "
                                    << c.format.image_channel_data_type);
    const size_t width = 5, height = 4;
    size_t elementSize = c.element.size();
    std::vector<cl_uchar> zeros(width * height * elementSize, 0);
    Mem filled = image(CL_MEM_COPY_HOST_PTR, c.format,
                       describe(CL_MEM_OBJECT_IMAGE2D, width, height), zeros.data());
    ASSERT_TRUE(filled);
    EXPECT_EQ(elementSize, imageInfo<size_t>(filled, CL_IMAGE_ELEMENT_SIZE));
    const size_t origin[] = {1, 1, 0}, region[] = {3, 2, 1};
    ASSERT_CL_SUCCESS(
        clEnqueueFillImage(queue_, filled, c.color.data(), origin, region, 0, nullptr, nullptr));
    std::vector<cl_uchar> all(zeros.size());
    const size_t zero[] = {0, 0, 0}, whole[] = {width, height, 1};
    ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, filled, CL_TRUE, zero, whole, 0, 0, all.data(), 0,
                                         nullptr, nullptr));
    for (size_t y = 0; y < height; ++y)
      for (size_t x = 0; x < width; ++x) {
        bool inside = x >= 1 && x < 4 && y >= 1 && y < 3;
        for (size_t byte = 0; byte < elementSize; ++byte)
          ASSERT_EQ(inside ? c.element[byte] : 0, all[(y * width + x) * elementSize + byte])
              << "at " << x << "," << y << " byte " << byte;
      }
  }
}

TEST_F(ImageObjectTest, SamplersKeepTheirStateAndProperties) {
  cl_int error = CL_SUCCESS;
  Handle<cl_sampler> plain(
      clCreateSampler(context_, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, &error));
  ASSERT_CL_SUCCESS(error);
  auto info = [](cl_sampler sampler, cl_sampler_info param, auto value) {
    EXPECT_CL_SUCCESS(clGetSamplerInfo(sampler, param, sizeof value, &value, nullptr));
    return value;
  };
  EXPECT_EQ(cl_bool(CL_FALSE), info(plain, CL_SAMPLER_NORMALIZED_COORDS, cl_bool{}));
  EXPECT_EQ(cl_addressing_mode(CL_ADDRESS_CLAMP_TO_EDGE),
            info(plain, CL_SAMPLER_ADDRESSING_MODE, cl_addressing_mode{}));
  EXPECT_EQ(cl_filter_mode(CL_FILTER_LINEAR),
            info(plain, CL_SAMPLER_FILTER_MODE, cl_filter_mode{}));
  EXPECT_EQ(context_.get(), info(plain, CL_SAMPLER_CONTEXT, cl_context{}));
  EXPECT_EQ(1u, info(plain, CL_SAMPLER_REFERENCE_COUNT, cl_uint{}));
  ASSERT_CL_SUCCESS(clRetainSampler(plain));
  EXPECT_EQ(2u, info(plain, CL_SAMPLER_REFERENCE_COUNT, cl_uint{}));
  ASSERT_CL_SUCCESS(clReleaseSampler(plain));
  size_t size = 1;
  ASSERT_CL_SUCCESS(clGetSamplerInfo(plain, CL_SAMPLER_PROPERTIES, 0, nullptr, &size));
  EXPECT_EQ(0u, size);

  // With properties: those left out take the defaults (normalized, clamp, nearest).
  const cl_sampler_properties properties[] = {CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_REPEAT, 0};
  Handle<cl_sampler> withProperties(clCreateSamplerWithProperties(context_, properties, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(cl_bool(CL_TRUE), info(withProperties, CL_SAMPLER_NORMALIZED_COORDS, cl_bool{}));
  EXPECT_EQ(cl_addressing_mode(CL_ADDRESS_REPEAT),
            info(withProperties, CL_SAMPLER_ADDRESSING_MODE, cl_addressing_mode{}));
  EXPECT_EQ(cl_filter_mode(CL_FILTER_NEAREST),
            info(withProperties, CL_SAMPLER_FILTER_MODE, cl_filter_mode{}));
  std::vector<cl_sampler_properties> returned(3);
  ASSERT_CL_SUCCESS(clGetSamplerInfo(withProperties, CL_SAMPLER_PROPERTIES,
                                     returned.size() * sizeof(cl_sampler_properties),
                                     returned.data(), &size));
  EXPECT_EQ(sizeof properties, size);
  EXPECT_EQ(std::vector<cl_sampler_properties>(std::begin(properties), std::end(properties)),
            returned);

  // Errors.
  Handle<cl_sampler> bad(clCreateSampler(context_, 7, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  bad = Handle<cl_sampler>(clCreateSampler(context_, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  bad = Handle<cl_sampler>(
      clCreateSampler(nullptr, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
  const cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                         CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
  bad = Handle<cl_sampler>(clCreateSamplerWithProperties(context_, twice, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  const cl_sampler_properties unknown[] = {0x7777, 1, 0};
  bad = Handle<cl_sampler>(clCreateSamplerWithProperties(context_, unknown, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_CL_ERROR(CL_INVALID_SAMPLER, clRetainSampler(nullptr));
  cl_uint count = 0;
  EXPECT_CL_ERROR(CL_INVALID_SAMPLER, clGetSamplerInfo(nullptr, CL_SAMPLER_REFERENCE_COUNT,
                                                       sizeof count, &count, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Images in kernels

/// The specification's sampling of one axis (OpenCL C section 8.2), for the host reference.
struct AxisSample {
  int i0, i1;   // texel indices; -1 and n are the border (CLK_ADDRESS_CLAMP)
  float weight; // of i1, for linear filtering
};

AxisSample referenceAxis(float s, int n, bool normalized, cl_addressing_mode mode, bool linear) {
  if (normalized && mode == CL_ADDRESS_REPEAT) {
    float u = (s - std::floor(s)) * n;
    if (!linear) {
      int i = static_cast<int>(std::floor(u));
      return {i > n - 1 ? i - n : i, 0, 0};
    }
    int i0 = static_cast<int>(std::floor(u - 0.5f)), i1 = i0 + 1;
    return {i0 < 0 ? i0 + n : i0, i1 > n - 1 ? i1 - n : i1, (u - 0.5f) - std::floor(u - 0.5f)};
  }
  if (normalized && mode == CL_ADDRESS_MIRRORED_REPEAT) {
    float u = std::fabs(s - 2.0f * std::rint(0.5f * s)) * n;
    if (!linear)
      return {std::min(static_cast<int>(std::floor(u)), n - 1), 0, 0};
    int i0 = static_cast<int>(std::floor(u - 0.5f));
    return {std::max(i0, 0), std::min(i0 + 1, n - 1), (u - 0.5f) - std::floor(u - 0.5f)};
  }
  float u = normalized ? s * n : s;
  auto bound = [&](int i) {
    return mode == CL_ADDRESS_CLAMP ? std::clamp(i, -1, n) : std::clamp(i, 0, n - 1);
  };
  if (!linear)
    return {bound(static_cast<int>(std::floor(u))), 0, 0};
  int i0 = static_cast<int>(std::floor(u - 0.5f));
  return {bound(i0), bound(i0 + 1), (u - 0.5f) - std::floor(u - 0.5f)};
}

/// How far a GPU's linear filter may be from the exact value, as a fraction of the largest texel
/// it weighs: the conformance suite's bound (2^-7), which the texture units' filter, weighing
/// with 8 fractional bits, meets. The CPU filters exactly.
constexpr float kHardwareFilterError = 1.0f / 128;

class ImageKernelTest : public ImageObjectTest {
protected:
  static constexpr int kWidth = 5, kHeight = 4;

  /// A kWidth x kHeight RGBA float image whose texel (x, y) is (x, y, 10x + y, 1).
  Mem gradient() {
    std::vector<cl_float4> texels;
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x)
        texels.push_back({{float(x), float(y), float(10 * x + y), 1.0f}});
    return image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, {CL_RGBA, CL_FLOAT},
                 describe(CL_MEM_OBJECT_IMAGE2D, kWidth, kHeight), texels.data());
  }

  static std::array<float, 4> texelAt(int x, int y) {
    if (x < 0 || x >= kWidth || y < 0 || y >= kHeight)
      return {0, 0, 0, 0}; // RGBA has alpha: the border is (0, 0, 0, 0)
    return {float(x), float(y), float(10 * x + y), 1.0f};
  }

  static std::array<float, 4> reference(float s, float t, bool normalized, cl_addressing_mode mode,
                                        bool linear) {
    AxisSample u = referenceAxis(s, kWidth, normalized, mode, linear);
    AxisSample v = referenceAxis(t, kHeight, normalized, mode, linear);
    if (!linear)
      return texelAt(u.i0, v.i0);
    std::array<float, 4> sum{};
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        float w = (dx ? u.weight : 1 - u.weight) * (dy ? v.weight : 1 - v.weight);
        std::array<float, 4> texel = texelAt(dx ? u.i1 : u.i0, dy ? v.i1 : v.i0);
        for (int c = 0; c < 4; ++c)
          sum[c] += w * texel[c];
      }
    return sum;
  }

  /// Per channel, the largest magnitude among the texels linear filtering weighs at (s, t).
  static std::array<float, 4> largestWeighed(float s, float t, bool normalized,
                                             cl_addressing_mode mode) {
    AxisSample u = referenceAxis(s, kWidth, normalized, mode, true);
    AxisSample v = referenceAxis(t, kHeight, normalized, mode, true);
    std::array<float, 4> largest{};
    for (int y : {v.i0, v.i1})
      for (int x : {u.i0, u.i1}) {
        std::array<float, 4> texel = texelAt(x, y);
        for (int c = 0; c < 4; ++c)
          largest[c] = std::max(largest[c], std::fabs(texel[c]));
      }
    return largest;
  }
};

const char *kSamplingSource = R"(
  kernel void sample(read_only image2d_t image, sampler_t sampler, global const float2 *coords,
                     global float4 *out) {
    size_t i = get_global_id(0);
    out[i] = read_imagef(image, sampler, coords[i]);
  }
  constant sampler_t kRepeat = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;
  kernel void sampleRepeat(read_only image2d_t image, global const float2 *coords,
                           global float4 *out) {
    size_t i = get_global_id(0);
    out[i] = read_imagef(image, kRepeat, coords[i]);
  }
  kernel void describe(read_only image3d_t volume, read_only image2d_array_t layers,
                       global int *out) {
    out[0] = get_image_width(volume);
    out[1] = get_image_height(volume);
    out[2] = get_image_depth(volume);
    int4 dim = get_image_dim(volume);
    out[3] = dim.x * 10000 + dim.y * 100 + dim.z;
    out[4] = (int)get_image_array_size(layers);
    out[5] = get_image_channel_order(layers) == CLK_RGBA;
    out[6] = get_image_channel_data_type(volume) == CLK_UNORM_INT8;
    out[7] = read_imageui(layers, (int4)(1, 1, 2, 0)).x;
  }
  kernel void fill(write_only image2d_t floats, write_only image2d_t ints,
                   write_only image2d_t uints) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float f = (p.x + 4 * p.y) / 10.0f - 0.2f;
    write_imagef(floats, p, (float4)(f, 1.0f - f, 0.5f, 2.0f));
    write_imagei(ints, p, (int4)(p.x * 20000 - 30000, 0, 0, 0));
    write_imageui(uints, p, (uint4)(p.x, p.y, 7, 1u << 31));
  })";

TEST_F(ImageKernelTest, SampledReadsFollowEveryAddressingAndFilterMode) {
  Mem texels = gradient();
  ASSERT_TRUE(texels);
  Kernel kernel = buildKernel(kSamplingSource, "sample");
  ASSERT_TRUE(kernel);
  std::vector<cl_float2> coords;
  for (float s : {-1.3f, -0.2f, 0.0f, 0.3f, 0.5f, 0.74f, 0.99f, 1.0f, 1.6f, 2.5f, 4.2f, 5.5f, 7.1f})
    for (float t : {-0.7f, 0.25f, 0.5f, 1.5f, 3.9f, 4.6f})
      coords.push_back({{s, t}});
  Mem coordBuffer = bufferWith(coords);
  Mem out = createBuffer(CL_MEM_READ_WRITE, coords.size() * sizeof(cl_float4));
  // A GPU's texture units compute texel indices in fixed point: a coordinate on a texel
  // boundary in exact arithmetic (-0.2 times 5 texels) may land on either side, as the
  // conformance suite allows.
  bool textureHardware = deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) == CL_DEVICE_TYPE_GPU;
  for (bool normalized : {false, true})
    for (cl_addressing_mode mode : {CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                    CL_ADDRESS_MIRRORED_REPEAT})
      for (cl_filter_mode filter : {CL_FILTER_NEAREST, CL_FILTER_LINEAR}) {
        if (!normalized && (mode == CL_ADDRESS_REPEAT || mode == CL_ADDRESS_MIRRORED_REPEAT))
          continue; // repeat modes need normalized coordinates
        SCOPED_TRACE(testing::Message() << "normalized " << normalized << " mode " << std::hex
                                        << mode << " filter " << filter);
        cl_int error = CL_SUCCESS;
        Handle<cl_sampler> sampler(clCreateSampler(context_, normalized, mode, filter, &error));
        ASSERT_CL_SUCCESS(error);
        ASSERT_TRUE(setArgs(kernel, texels, sampler, coordBuffer, out));
        ASSERT_TRUE(run1D(kernel, coords.size()));
        std::vector<cl_float4> got = read<cl_float4>(out, coords.size());
        for (size_t i = 0; i < coords.size(); ++i) {
          // The same numbers serve as normalized coordinates: most fall outside [0, 1].
          float s = coords[i].s[0], t = coords[i].s[1];
          bool linear = filter == CL_FILTER_LINEAR;
          std::array<float, 4> expected = reference(s, t, normalized, mode, linear);
          std::array<float, 4> seen{got[i].s[0], got[i].s[1], got[i].s[2], got[i].s[3]};
          if (textureHardware && !linear && seen != expected) {
            constexpr float kNudge = 1e-5f;
            for (float ds : {-kNudge, 0.0f, kNudge})
              for (float dt : {-kNudge, 0.0f, kNudge})
                if (reference(s + ds, t + dt, normalized, mode, false) == seen)
                  expected = seen;
          }
          std::array<float, 4> largest = largestWeighed(s, t, normalized, mode);
          for (int c = 0; c < 4; ++c) {
            float tolerance = textureHardware && linear
                                  ? std::max(1e-3f, kHardwareFilterError * largest[c])
                                  : 1e-3f;
            ASSERT_NEAR(expected[c], got[i].s[c], tolerance)
                << "at (" << coords[i].s[0] << ", " << coords[i].s[1] << ") channel " << c;
          }
        }
      }
}

TEST_F(ImageKernelTest, ProgramScopeSamplersAndQueries) {
  Mem texels = gradient();
  Kernel repeat = buildKernel(kSamplingSource, "sampleRepeat");
  ASSERT_TRUE(repeat);
  std::vector<cl_float2> coords{{{1.1f, 0.1f}}, {{-0.1f, 0.9f}}, {{0.5f, 2.6f}}};
  Mem coordBuffer = bufferWith(coords);
  Mem out = createBuffer(CL_MEM_READ_WRITE, coords.size() * sizeof(cl_float4));
  ASSERT_TRUE(setArgs(repeat, texels, coordBuffer, out));
  ASSERT_TRUE(run1D(repeat, coords.size()));
  std::vector<cl_float4> got = read<cl_float4>(out, coords.size());
  for (size_t i = 0; i < coords.size(); ++i) {
    std::array<float, 4> expected =
        reference(coords[i].s[0], coords[i].s[1], true, CL_ADDRESS_REPEAT, false);
    for (int c = 0; c < 4; ++c)
      EXPECT_FLOAT_EQ(expected[c], got[i].s[c]) << i << " channel " << c;
  }

  Mem volume = image(0, kRgba8, describe(CL_MEM_OBJECT_IMAGE3D, 6, 5, 4));
  // A 3 x 2 array of 4 layers whose texel (1, 1) of layer 2 holds 4242.
  std::vector<cl_uint> layerTexels(3 * 2 * 4 * 4, 0);
  layerTexels[4 * (2 * 3 * 2 + 1 * 3 + 1)] = 4242;
  Mem layers = image(CL_MEM_COPY_HOST_PTR, {CL_RGBA, CL_UNSIGNED_INT32},
                     describe(CL_MEM_OBJECT_IMAGE2D_ARRAY, 3, 2, 4), layerTexels.data());
  ASSERT_TRUE(volume && layers);
  Kernel describeKernel = buildKernel(kSamplingSource, "describe");
  ASSERT_TRUE(describeKernel);
  Mem answers = createBuffer(CL_MEM_READ_WRITE, 8 * sizeof(cl_int));
  ASSERT_TRUE(setArgs(describeKernel, volume, layers, answers));
  ASSERT_TRUE(run1D(describeKernel, 1));
  EXPECT_EQ((std::vector<cl_int>{6, 5, 4, 60504, 4, 1, 1, 4242}), read<cl_int>(answers, 8));
}

TEST_F(ImageKernelTest, WritesConvertToEachFormat) {
  const size_t width = 5, height = 2;
  Mem floats = image(CL_MEM_WRITE_ONLY, kRgba8, describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  Mem ints = image(CL_MEM_WRITE_ONLY, {CL_R, CL_SIGNED_INT16},
                   describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  Mem uints = image(CL_MEM_WRITE_ONLY, {CL_RGBA, CL_UNSIGNED_INT32},
                    describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  ASSERT_TRUE(floats && ints && uints);
  Kernel kernel = buildKernel(kSamplingSource, "fill");
  ASSERT_TRUE(kernel);
  ASSERT_TRUE(setArgs(kernel, floats, ints, uints));
  size_t global[] = {width, height};
  ASSERT_TRUE(run(kernel, 2, global));
  const size_t zero[] = {0, 0, 0}, whole[] = {width, height, 1};
  std::vector<cl_uchar> bytes(width * height * 4);
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, floats, CL_TRUE, zero, whole, 0, 0, bytes.data(), 0,
                                       nullptr, nullptr));
  std::vector<cl_short> shorts(width * height);
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, ints, CL_TRUE, zero, whole, 0, 0, shorts.data(), 0,
                                       nullptr, nullptr));
  std::vector<cl_uint> words(width * height * 4);
  ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, uints, CL_TRUE, zero, whole, 0, 0, words.data(), 0,
                                       nullptr, nullptr));
  auto unorm8 = [](float f) {
    return static_cast<cl_uchar>(std::clamp(std::nearbyint(f * 255.0f), 0.0f, 255.0f));
  };
  for (size_t y = 0; y < height; ++y)
    for (size_t x = 0; x < width; ++x) {
      size_t i = y * width + x;
      float f = (x + 4 * y) / 10.0f - 0.2f;
      EXPECT_EQ(unorm8(f), bytes[4 * i]) << x << "," << y;
      EXPECT_EQ(unorm8(1.0f - f), bytes[4 * i + 1]) << x << "," << y;
      EXPECT_EQ(128, bytes[4 * i + 2]); // 127.5 rounds to even
      EXPECT_EQ(255, bytes[4 * i + 3]); // 2.0 saturates
      EXPECT_EQ(static_cast<cl_short>(std::clamp<int>(int(x) * 20000 - 30000, -32768, 32767)),
                shorts[i]);
      EXPECT_EQ(x, words[4 * i]);
      EXPECT_EQ(y, words[4 * i + 1]);
      EXPECT_EQ(7u, words[4 * i + 2]);
      EXPECT_EQ(1u << 31, words[4 * i + 3]);
    }
}

const char *kSrgbSource = R"(
  constant sampler_t kNearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                                CLK_FILTER_NEAREST;
  kernel void readAll(read_only image2d_t image, global float4 *out) {
    int x = get_global_id(0);
    out[x] = read_imagef(image, (int2)(x, 0));
  }
  kernel void sampleAll(read_only image2d_t image, global float4 *out) {
    int x = get_global_id(0);
    out[x] = read_imagef(image, kNearest, (int2)(x, 0));
  })";

/// The linear value of an 8-bit sRGB colour channel: the transfer function in double precision,
/// rounded once.
float srgbToLinear(int byte) {
  double c = byte / 255.0;
  return static_cast<float>(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
}

TEST_F(ImageKernelTest, SrgbReadsGiveEveryBytesLinearValue) {
  // With and without a sampler (a GPU samples through its texture units).
  for (const char *name : {"readAll", "sampleAll"}) {
    SCOPED_TRACE(name);
    Kernel kernel = buildKernel(kSrgbSource, name);
    ASSERT_TRUE(kernel);
    const size_t width = 256;
    // Texel x holds x in its first channel and other bytes in the others, so that every byte
    // value passes through every colour channel.
    std::vector<cl_uchar> bytes;
    for (int x = 0; x < 256; ++x)
      for (int value : {x, 255 - x, (x * 7) % 256, (x * 13 + 5) % 256})
        bytes.push_back(static_cast<cl_uchar>(value));
    for (cl_channel_order order : {CL_sRGBA, CL_sBGRA}) {
      SCOPED_TRACE(order == CL_sRGBA ? "sRGBA" : "sBGRA");
      Mem srgb = image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, {order, CL_UNORM_INT8},
                       describe(CL_MEM_OBJECT_IMAGE2D, width, 1), bytes.data());
      ASSERT_TRUE(srgb);
      Mem out = createBuffer(CL_MEM_WRITE_ONLY, width * sizeof(cl_float4));
      ASSERT_TRUE(setArgs(kernel, srgb, out));
      ASSERT_TRUE(run(kernel, 1, &width));
      std::vector<cl_float4> colors = read<cl_float4>(out, width);
      for (size_t x = 0; x < width; ++x) {
        const cl_uchar *stored = &bytes[4 * x];
        int red = order == CL_sRGBA ? stored[0] : stored[2],
            blue = order == CL_sRGBA ? stored[2] : stored[0];
        // Kiln returns the floats nearest the exact values.
        EXPECT_EQ(srgbToLinear(red), colors[x].s[0]) << x;
        EXPECT_EQ(srgbToLinear(stored[1]), colors[x].s[1]) << x;
        EXPECT_EQ(srgbToLinear(blue), colors[x].s[2]) << x;
        EXPECT_EQ(stored[3] / 255.0f, colors[x].s[3]) << x; // alpha stays linear
      }
    }
  }
}

const char *kColumnSource = R"(
  constant sampler_t kNearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                                CLK_FILTER_NEAREST;
  kernel void nearestColumns(read_only image2d_t image, global float4 *sums) {
    int x = get_global_id(0);
    float4 sum = 0.0f;
    for (int y = 0; y < get_image_height(image); ++y)
      sum += read_imagef(image, kNearest, (int2)(x, y));
    sums[x] = sum;
  }
  kernel void linearColumns(read_only image2d_t image, sampler_t sampler, float scale,
                            global float4 *sums) {
    int x = get_global_id(0);
    float4 sum = 0.0f;
    for (int y = -1; y <= get_image_height(image); ++y)
      sum += read_imagef(image, sampler, (float2)(x - 0.7f, y + 0.35f) * scale);
    sums[x] = sum;
  })";

/// An image's texels as read_imagef returns them, for the host reference: 8-bit RGBA, BGRA and
/// sRGBA, R float and RGB 5:6:5, each kind of channel order a GPU's texture read swizzles.
struct ColumnImage {
  cl_image_format format;
  std::vector<cl_uchar> bytes;
  size_t elementSize;

  std::array<float, 4> texel(int x, int y, int width, int height) const {
    bool alpha = format.image_channel_order != CL_R && format.image_channel_order != CL_RGB;
    if (x < 0 || x >= width || y < 0 || y >= height)
      return {0, 0, 0, alpha ? 0.0f : 1.0f}; // the border of CL_ADDRESS_CLAMP
    const cl_uchar *p = &bytes[(size_t(y) * width + x) * elementSize];
    switch (format.image_channel_order) {
    case CL_RGBA:
      return {p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f, p[3] / 255.0f};
    case CL_BGRA:
      return {p[2] / 255.0f, p[1] / 255.0f, p[0] / 255.0f, p[3] / 255.0f};
    case CL_sRGBA:
      return {srgbToLinear(p[0]), srgbToLinear(p[1]), srgbToLinear(p[2]), p[3] / 255.0f};
    case CL_R: {
      float value;
      std::memcpy(&value, p, sizeof value);
      return {value, 0, 0, 1};
    }
    default: { // CL_RGB, CL_UNORM_SHORT_565
      unsigned packed = p[0] | p[1] << 8;
      return {(packed >> 11) / 31.0f, (packed >> 5 & 63) / 63.0f, (packed & 31) / 31.0f, 1};
    }
    }
  }
};

TEST_F(ImageKernelTest, ReadsInLoopsAndLinearFilteringAgreeForEachKindOfFormat) {
  // A GPU compiles each loop once per choice an image's format makes (a texture or software,
  // sRGB or not) and filters linearly from texels its texture units fetch: every choice of
  // each loop must give the specification's values. RGB 5:6:5 has no texture on a GPU.
  constexpr int kColumns = 9, kRows = 6;
  bool textureHardware = deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) == CL_DEVICE_TYPE_GPU;
  Kernel nearest = buildKernel(kColumnSource, "nearestColumns");
  Kernel linear = buildKernel(kColumnSource, "linearColumns");
  ASSERT_TRUE(nearest && linear);
  std::vector<ColumnImage> images;
  for (cl_image_format format :
       {cl_image_format{CL_RGBA, CL_UNORM_INT8}, cl_image_format{CL_BGRA, CL_UNORM_INT8},
        cl_image_format{CL_sRGBA, CL_UNORM_INT8}, cl_image_format{CL_R, CL_FLOAT},
        cl_image_format{CL_RGB, CL_UNORM_SHORT_565}}) {
    size_t size = format.image_channel_order == CL_RGB ? 2 : 4;
    std::vector<cl_uchar> bytes(kColumns * kRows * size);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<cl_uchar>((i * 37 + 11) % 251);
    if (format.image_channel_order == CL_R)
      for (size_t i = 0; i < bytes.size(); i += 4) {
        float value = static_cast<float>(i % 23) * 0.125f - 1.0f;
        std::memcpy(&bytes[i], &value, sizeof value);
      }
    images.push_back({format, std::move(bytes), size});
  }
  for (const ColumnImage &source : images) {
    SCOPED_TRACE(testing::Message() << "order " << std::hex << source.format.image_channel_order);
    std::vector<cl_uchar> bytes = source.bytes;
    Mem texels = image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, source.format,
                       describe(CL_MEM_OBJECT_IMAGE2D, kColumns, kRows), bytes.data());
    ASSERT_TRUE(texels);
    Mem sums = createBuffer(CL_MEM_WRITE_ONLY, kColumns * sizeof(cl_float4));
    ASSERT_TRUE(setArgs(nearest, texels, sums));
    ASSERT_TRUE(run1D(nearest, kColumns));
    std::vector<cl_float4> got = read<cl_float4>(sums, kColumns);
    for (int x = 0; x < kColumns; ++x) {
      std::array<float, 4> expected{};
      for (int y = 0; y < kRows; ++y) {
        std::array<float, 4> texel = source.texel(x, y, kColumns, kRows);
        for (int c = 0; c < 4; ++c)
          expected[c] += texel[c];
      }
      for (int c = 0; c < 4; ++c)
        ASSERT_NEAR(expected[c], got[x].s[c], 1e-4f) << "nearest, column " << x << " channel " << c;
    }
    for (bool normalized : {false, true}) {
      cl_addressing_mode mode = normalized ? CL_ADDRESS_REPEAT : CL_ADDRESS_CLAMP;
      SCOPED_TRACE(normalized ? "normalized, repeat" : "unnormalized, clamp");
      cl_int error = CL_SUCCESS;
      Handle<cl_sampler> sampler(
          clCreateSampler(context_, normalized, mode, CL_FILTER_LINEAR, &error));
      ASSERT_CL_SUCCESS(error);
      // Normalized: a scale that is not the image's, so the coordinates wrap at other places.
      float scale = normalized ? 1.0f / 7.0f : 1.0f;
      ASSERT_TRUE(setArgs(linear, texels, sampler, scale, sums));
      ASSERT_TRUE(run1D(linear, kColumns));
      got = read<cl_float4>(sums, kColumns);
      for (int x = 0; x < kColumns; ++x) {
        // Each read's share of the tolerance adds up: 1e-4, or on a GPU the filter's bound
        // (kHardwareFilterError) of the largest texel the read weighs.
        std::array<float, 4> expected{}, tolerance{};
        for (int y = -1; y <= kRows; ++y) {
          float s = (x - 0.7f) * scale, t = (y + 0.35f) * scale;
          AxisSample u = referenceAxis(s, kColumns, normalized, mode, true);
          AxisSample v = referenceAxis(t, kRows, normalized, mode, true);
          std::array<float, 4> largest{};
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
              float w = (dx ? u.weight : 1 - u.weight) * (dy ? v.weight : 1 - v.weight);
              std::array<float, 4> texel =
                  source.texel(dx ? u.i1 : u.i0, dy ? v.i1 : v.i0, kColumns, kRows);
              for (int c = 0; c < 4; ++c) {
                expected[c] += w * texel[c];
                largest[c] = std::max(largest[c], std::fabs(texel[c]));
              }
            }
          for (int c = 0; c < 4; ++c)
            tolerance[c] +=
                textureHardware ? std::max(1e-4f, kHardwareFilterError * largest[c]) : 1e-4f;
        }
        for (int c = 0; c < 4; ++c)
          ASSERT_NEAR(expected[c], got[x].s[c], tolerance[c])
              << "linear, column " << x << " channel " << c;
      }
    }
  }
}

const char *kBufferImageSource = R"(
  kernel void copyAndMark(read_only image1d_buffer_t in, write_only image2d_t out, int width) {
    int x = get_global_id(0), y = get_global_id(1);
    uint4 texel = read_imageui(in, y * width + x);
    write_imageui(out, (int2)(x, y), texel + (uint4)(1, 2, 3, 4));
  })";

TEST_F(ImageKernelTest, KernelsReadAndWriteTheBytesOfImagesOverBuffers) {
  // A 1D image over one buffer is read, a 2D image over another (rows padded to the pitch
  // alignment) is written: what the kernel writes, the buffer holds.
  if (!hasExtension(device_, "cl_khr_image2d_from_buffer"))
    GTEST_SKIP() << "no cl_khr_image2d_from_buffer";
  const size_t width = 7, height = 3;
  cl_uint alignment = deviceInfo<cl_uint>(device_, CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
  size_t pitchPixels = (width + alignment - 1) / alignment * alignment;
  std::vector<cl_uchar> source(width * height * 4);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = static_cast<cl_uchar>(i * 7 + 3);
  const cl_image_format format{CL_RGBA, CL_UNSIGNED_INT8};
  Mem input = bufferWith(source);
  cl_image_desc linear = describe(CL_MEM_OBJECT_IMAGE1D_BUFFER, width * height);
  linear.buffer = input.get();
  Mem inputImage = image(CL_MEM_READ_ONLY, format, linear);
  Mem output = bufferWith(std::vector<cl_uchar>(pitchPixels * 4 * height, 0xEE));
  cl_image_desc planar = describe(CL_MEM_OBJECT_IMAGE2D, width, height, 0, pitchPixels * 4);
  planar.buffer = output.get();
  Mem outputImage = image(CL_MEM_WRITE_ONLY, format, planar);
  ASSERT_TRUE(inputImage && outputImage);
  Kernel kernel = buildKernel(kBufferImageSource, "copyAndMark");
  ASSERT_TRUE(kernel);
  cl_int widthArg = width;
  ASSERT_TRUE(setArgs(kernel, inputImage, outputImage, widthArg));
  size_t global[] = {width, height};
  ASSERT_TRUE(run(kernel, 2, global));
  std::vector<cl_uchar> written = read<cl_uchar>(output, pitchPixels * 4 * height);
  for (size_t y = 0; y < height; ++y)
    for (size_t x = 0; x < pitchPixels; ++x)
      for (size_t c = 0; c < 4; ++c) {
        // write_imageui saturates to the channel's range; the padding stays untouched.
        size_t sum = source[(y * width + x) * 4 + c] + c + 1;
        cl_uchar expected = x < width ? static_cast<cl_uchar>(std::min<size_t>(sum, 255)) : 0xEE;
        EXPECT_EQ(expected, written[(y * pitchPixels + x) * 4 + c]) << x << "," << y << "," << c;
      }
}

TEST_F(ImageKernelTest, KernelWritesToAHostPointerImageReachTheApplicationThroughAMap) {
  // A 3D image in the application's memory, rows padded: a kernel writes every element, a map
  // shows them in that memory (a GPU keeps a copy that the map brings back), and a sampled
  // read sees what the host then writes through a second map.
  const size_t width = 5, height = 3, depth = 2, rowPitch = 32, slicePitch = rowPitch * height;
  std::vector<cl_uchar> memory(slicePitch * depth, 0xEE);
  const cl_image_format format{CL_RGBA, CL_UNSIGNED_INT8};
  Mem volume = image(CL_MEM_USE_HOST_PTR, format,
                     describe(CL_MEM_OBJECT_IMAGE3D, width, height, depth, rowPitch, slicePitch),
                     memory.data());
  ASSERT_TRUE(volume);
  Kernel kernel = buildKernel(R"(
    kernel void number(write_only image3d_t volume) {
      int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
      write_imageui(volume, p, (uint4)(p.x, p.y, p.z, p.x + 10 * p.y + 100 * p.z));
    })",
                              "number");
  ASSERT_TRUE(kernel);
  ASSERT_TRUE(setArgs(kernel, volume));
  size_t global[] = {width, height, depth};
  ASSERT_TRUE(run(kernel, 3, global));
  size_t origin[3] = {0, 0, 0}, region[3] = {width, height, depth}, pitch = 0, slice = 0;
  cl_int error = CL_SUCCESS;
  auto *mapped = static_cast<cl_uchar *>(
      clEnqueueMapImage(queue_, volume, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, region, &pitch,
                        &slice, 0, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(memory.data(), mapped);
  EXPECT_EQ(rowPitch, pitch);
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y)
      for (size_t x = 0; x < width; ++x) {
        const cl_uchar *element = mapped + z * slicePitch + y * rowPitch + x * 4;
        EXPECT_EQ((std::vector<cl_uchar>{cl_uchar(x), cl_uchar(y), cl_uchar(z),
                                         cl_uchar(x + 10 * y + 100 * z)}),
                  std::vector<cl_uchar>(element, element + 4))
            << x << "," << y << "," << z;
      }
  // The host changes row 1 of slice 1; the next kernel samples it.
  for (size_t x = 0; x < width; ++x)
    mapped[slicePitch + rowPitch + x * 4 + 3] = cl_uchar(200 + x);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, volume, mapped, 0, nullptr, nullptr));
  Kernel sample = buildKernel(R"(
    kernel void sample(read_only image3d_t volume, sampler_t sampler, global uint4 *out) {
      int i = get_global_id(0);
      out[i] = read_imageui(volume, sampler, (float4)(i + 0.5f, 1.5f, 1.5f, 0.0f));
    })",
                              "sample");
  Handle<cl_sampler> sampler(
      clCreateSampler(context_, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &error));
  ASSERT_CL_SUCCESS(error);
  Mem out = createBuffer(CL_MEM_READ_WRITE, width * sizeof(cl_uint4));
  ASSERT_TRUE(sample && setArgs(sample, volume, sampler, out));
  ASSERT_TRUE(run1D(sample, width));
  std::vector<cl_uint4> got = read<cl_uint4>(out, width);
  for (size_t x = 0; x < width; ++x)
    EXPECT_EQ((std::vector<cl_uint>{cl_uint(x), 1, 1, cl_uint(200 + x)}),
              std::vector<cl_uint>(got[x].s, got[x].s + 4))
        << x;
}

TEST_F(ImageKernelTest, SampledReadsSeeEveryKindOfWriteBeforeThem) {
  // A GPU samples a copy of an image's elements: each way of writing them, enqueued between two
  // sampled reads with no wait in between, must reach the second read (and a read after no
  // write sees the same elements again).
  const size_t width = 8, height = 4, texels = width * height;
  const cl_image_format format{CL_RGBA, CL_UNSIGNED_INT8};
  auto pattern = [&](int seed) {
    std::vector<cl_uchar> bytes(texels * 4);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<cl_uchar>(seed * 31 + i * 7);
    return bytes;
  };
  std::vector<cl_uchar> initial = pattern(1);
  Mem picture = image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_WRITE, format,
                      describe(CL_MEM_OBJECT_IMAGE2D, width, height), initial.data());
  std::vector<cl_uchar> other = pattern(5);
  Mem copied = image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, format,
                     describe(CL_MEM_OBJECT_IMAGE2D, width, height), other.data());
  ASSERT_TRUE(picture && copied);
  const char *source = R"(
    kernel void sample(read_only image2d_t image, sampler_t sampler, global uint4 *out) {
      int x = get_global_id(0), y = get_global_id(1);
      out[y * get_image_width(image) + x] = read_imageui(image, sampler, (int2)(x, y));
    }
    kernel void stamp(write_only image2d_t image, uint seed) {
      int x = get_global_id(0), y = get_global_id(1), i = 4 * (y * get_image_width(image) + x);
      write_imageui(image, (int2)(x, y), ((uint4)(i, i + 1, i + 2, i + 3) * 7 + seed * 31) & 255);
    })";
  Kernel sample = buildKernel(source, "sample");
  Kernel stamp = buildKernel(source, "stamp");
  ASSERT_TRUE(sample && stamp);
  cl_int error = CL_SUCCESS;
  Handle<cl_sampler> sampler(
      clCreateSampler(context_, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &error));
  ASSERT_CL_SUCCESS(error);

  std::vector<std::vector<cl_uchar>> expected;
  std::vector<Mem> outs;
  size_t global[] = {width, height}, origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
  auto sampleNow = [&](std::vector<cl_uchar> contents) {
    outs.push_back(createBuffer(CL_MEM_WRITE_ONLY, texels * sizeof(cl_uint4)));
    expected.push_back(std::move(contents));
    ASSERT_TRUE(setArgs(sample, picture, sampler, outs.back()));
    ASSERT_CL_SUCCESS(
        clEnqueueNDRangeKernel(queue_, sample, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  };
  sampleNow(initial);
  sampleNow(initial);
  std::vector<cl_uchar> written = pattern(2);
  ASSERT_CL_SUCCESS(clEnqueueWriteImage(queue_, picture, CL_FALSE, origin, region, 0, 0,
                                        written.data(), 0, nullptr, nullptr));
  sampleNow(written);
  const cl_uint4 color{{9, 8, 7, 6}};
  ASSERT_CL_SUCCESS(
      clEnqueueFillImage(queue_, picture, &color, origin, region, 0, nullptr, nullptr));
  std::vector<cl_uchar> filled;
  for (size_t i = 0; i < texels; ++i)
    filled.insert(filled.end(), {9, 8, 7, 6});
  sampleNow(filled);
  cl_uint seed = 3;
  ASSERT_TRUE(setArgs(stamp, picture, seed));
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue_, stamp, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  sampleNow(pattern(3));
  ASSERT_CL_SUCCESS(
      clEnqueueCopyImage(queue_, copied, picture, origin, origin, region, 0, nullptr, nullptr));
  sampleNow(other);
  std::vector<cl_uchar> fromBuffer = pattern(4);
  Mem staging = bufferWith(fromBuffer);
  ASSERT_CL_SUCCESS(
      clEnqueueCopyBufferToImage(queue_, staging, picture, 0, origin, region, 0, nullptr, nullptr));
  sampleNow(fromBuffer);
  // A write on a second queue, which the next read waits for by its event.
  Queue second(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clFinish(queue_));
  std::vector<cl_uchar> elsewhere = pattern(6);
  Event secondWrite;
  ASSERT_CL_SUCCESS(clEnqueueWriteImage(second, picture, CL_FALSE, origin, region, 0, 0,
                                        elsewhere.data(), 0, nullptr, secondWrite.out()));
  ASSERT_CL_SUCCESS(clEnqueueMarkerWithWaitList(queue_, 1, secondWrite.ptr(), nullptr));
  sampleNow(elsewhere);
  // The host writes through a map.
  size_t pitch = 0;
  auto *mapped = static_cast<cl_uchar *>(clEnqueueMapImage(queue_, picture, CL_TRUE, CL_MAP_WRITE,
                                                           origin, region, &pitch, nullptr, 0,
                                                           nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  std::vector<cl_uchar> host = pattern(7);
  for (size_t y = 0; y < height; ++y)
    std::memcpy(mapped + y * pitch, host.data() + y * width * 4, width * 4);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, picture, mapped, 0, nullptr, nullptr));
  sampleNow(host);
  ASSERT_CL_SUCCESS(clFinish(queue_));

  for (size_t index = 0; index < outs.size(); ++index) {
    std::vector<cl_uint4> got = read<cl_uint4>(outs[index], texels);
    std::vector<cl_uchar> seen;
    for (const cl_uint4 &texel : got)
      for (int c = 0; c < 4; ++c)
        seen.push_back(static_cast<cl_uchar>(texel.s[c]));
    EXPECT_TRUE(equalArrays(expected[index], seen)) << "read " << index;
  }
}

// One kernel object run on images of one format after another, and then on the first again:
// the CPU device compiles a kernel's code per format of its images, so each launch must find
// the code of its own images' formats. The last kernel takes more images than that code is
// specialized on.
const char *kFormatsSource = R"(
  kernel void convert(read_only image2d_t from, write_only image2d_t to) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(to, at, read_imagef(from, at));
  }
  kernel void sum_of_six(read_only image2d_t a, read_only image2d_t b, read_only image2d_t c,
                         read_only image2d_t d, read_only image2d_t e, read_only image2d_t f,
                         global float4 *out) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    out[at.y * get_image_width(a) + at.x] = read_imagef(a, at) + 10.0f * read_imagef(b, at) +
        100.0f * read_imagef(c, at) + 1000.0f * read_imagef(d, at) +
        10000.0f * read_imagef(e, at) + 100000.0f * read_imagef(f, at);
  }
)";

/// An image of one of a few formats whose stored channels follow a pattern, and the
/// (r, g, b, a) read_imagef gives for each texel.
struct PatternImage {
  cl_image_format format;
  std::vector<unsigned char> bytes;
  std::vector<std::array<float, 4>> colors;
};

PatternImage patternImage(cl_image_format format, size_t width, size_t height, int seed) {
  PatternImage made{format, {}, {}};
  int channels = format.image_channel_order == CL_R    ? 1
                 : format.image_channel_order == CL_RG ? 2
                                                       : 4;
  for (size_t i = 0; i < width * height; ++i) {
    std::array<float, 4> stored{0, 0, 0, 1};
    for (int c = 0; c < channels; ++c) {
      int raw = static_cast<int>((i * 37 + c * 91 + seed * 13) % 256);
      switch (format.image_channel_data_type) {
      case CL_UNORM_INT8:
        made.bytes.push_back(static_cast<unsigned char>(raw));
        stored[c] = raw / 255.0f;
        break;
      case CL_SNORM_INT8:
        made.bytes.push_back(static_cast<unsigned char>(raw));
        stored[c] = std::max(static_cast<signed char>(raw) / 127.0f, -1.0f);
        break;
      case CL_UNORM_INT16: {
        auto value = static_cast<uint16_t>(raw * 257 + c);
        made.bytes.push_back(static_cast<unsigned char>(value & 0xFF));
        made.bytes.push_back(static_cast<unsigned char>(value >> 8));
        stored[c] = value / 65535.0f;
        break;
      }
      default: { // CL_FLOAT
        float value = raw / 8.0f - 3.0f;
        unsigned char word[4];
        std::memcpy(word, &value, 4);
        made.bytes.insert(made.bytes.end(), word, word + 4);
        stored[c] = value;
        break;
      }
      }
    }
    if (format.image_channel_order == CL_BGRA)
      std::swap(stored[0], stored[2]);
    made.colors.push_back(stored);
  }
  return made;
}

TEST_F(ImageKernelTest, OneKernelReadsImagesOfEachFormatInTurn) {
  const size_t width = 37, height = 3; // rows of partial SIMD groups
  Kernel kernel = buildKernel(kFormatsSource, "convert");
  ASSERT_TRUE(kernel);
  Mem floats =
      image(CL_MEM_WRITE_ONLY, {CL_RGBA, CL_FLOAT}, describe(CL_MEM_OBJECT_IMAGE2D, width, height));
  const cl_image_format formats[] = {{CL_RGBA, CL_UNORM_INT8}, {CL_BGRA, CL_UNORM_INT8},
                                     {CL_R, CL_UNORM_INT16},   {CL_RG, CL_SNORM_INT8},
                                     {CL_RGBA, CL_FLOAT},      {CL_RGBA, CL_UNORM_INT8}};
  int seed = 0;
  for (const cl_image_format &format : formats) {
    SCOPED_TRACE(testing::Message() << "order " << std::hex << format.image_channel_order
                                    << " type " << format.image_channel_data_type);
    PatternImage pattern = patternImage(format, width, height, ++seed);
    Mem source = image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, format,
                       describe(CL_MEM_OBJECT_IMAGE2D, width, height), pattern.bytes.data());
    ASSERT_TRUE(source && floats);
    ASSERT_TRUE(setArgs(kernel, source, floats));
    size_t global[] = {width, height};
    ASSERT_TRUE(run(kernel, 2, global));
    std::vector<cl_float4> read(width * height);
    const size_t zero[] = {0, 0, 0}, whole[] = {width, height, 1};
    ASSERT_CL_SUCCESS(clEnqueueReadImage(queue_, floats, CL_TRUE, zero, whole, 0, 0, read.data(), 0,
                                         nullptr, nullptr));
    for (size_t i = 0; i < read.size(); ++i)
      for (int c = 0; c < 4; ++c)
        ASSERT_FLOAT_EQ(pattern.colors[i][c], read[i].s[c]) << "texel " << i << " channel " << c;
  }
}

TEST_F(ImageKernelTest, AKernelOfMoreImagesThanItsCodeKnowsTheFormatsOfReadsThemAll) {
  const size_t width = 19, height = 2;
  Kernel kernel = buildKernel(kFormatsSource, "sum_of_six");
  ASSERT_TRUE(kernel);
  const cl_image_format formats[] = {{CL_RGBA, CL_UNORM_INT8}, {CL_R, CL_UNORM_INT16},
                                     {CL_BGRA, CL_UNORM_INT8}, {CL_RG, CL_SNORM_INT8},
                                     {CL_RGBA, CL_FLOAT},      {CL_R, CL_UNORM_INT16}};
  std::vector<PatternImage> patterns;
  std::vector<Mem> images;
  for (const cl_image_format &format : formats) {
    patterns.push_back(patternImage(format, width, height, static_cast<int>(patterns.size())));
    images.push_back(image(CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, format,
                           describe(CL_MEM_OBJECT_IMAGE2D, width, height),
                           patterns.back().bytes.data()));
    ASSERT_TRUE(images.back());
  }
  Mem out = createBuffer(CL_MEM_WRITE_ONLY, width * height * sizeof(cl_float4));
  ASSERT_TRUE(
      setArgs(kernel, images[0], images[1], images[2], images[3], images[4], images[5], out));
  size_t global[] = {width, height};
  ASSERT_TRUE(run(kernel, 2, global));
  std::vector<cl_float4> sums = read<cl_float4>(out, width * height);
  for (size_t i = 0; i < sums.size(); ++i)
    for (int c = 0; c < 4; ++c) {
      float expected = 0, scale = 1;
      for (const PatternImage &pattern : patterns) {
        expected += scale * pattern.colors[i][c];
        scale *= 10;
      }
      EXPECT_NEAR(expected, sums[i].s[c], 0.2f) << "texel " << i << " channel " << c;
    }
}

TEST_F(ImageKernelTest, ImageAndSamplerArgumentsAreChecked) {
  Kernel kernel = buildKernel(kSamplingSource, "sample");
  ASSERT_TRUE(kernel);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  cl_mem raw = buffer.get();
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 0, sizeof raw, &raw));
  cl_mem none = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 0, sizeof none, &none));
  EXPECT_CL_ERROR(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 0, 4, &raw));
  cl_sampler notASampler = reinterpret_cast<cl_sampler>(raw);
  EXPECT_CL_ERROR(CL_INVALID_SAMPLER, clSetKernelArg(kernel, 1, sizeof notASampler, &notASampler));
  Mem texels = gradient();
  cl_mem image = texels.get();
  // An image where a buffer is expected.
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 2, sizeof image, &image));
  // An image of another type than the argument's, and images the kernel may not access as
  // the argument's qualifier says.
  Mem volume = this->image(0, kRgba8, describe(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4));
  cl_mem wrongType = volume.get();
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, clSetKernelArg(kernel, 0, sizeof wrongType, &wrongType));
  Mem writeOnly = this->image(CL_MEM_WRITE_ONLY, kRgba8, describe(CL_MEM_OBJECT_IMAGE2D, 4, 4));
  cl_mem unreadable = writeOnly.get();
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, clSetKernelArg(kernel, 0, sizeof unreadable, &unreadable));
  Kernel fill = buildKernel(kSamplingSource, "fill");
  ASSERT_TRUE(fill);
  cl_mem readOnly = texels.get(); // created CL_MEM_READ_ONLY
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, clSetKernelArg(fill, 0, sizeof readOnly, &readOnly));
  EXPECT_CL_SUCCESS(clSetKernelArg(fill, 0, sizeof unreadable, &unreadable));
}

} // namespace
