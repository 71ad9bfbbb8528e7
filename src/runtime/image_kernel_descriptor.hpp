// What a kernel receives for an image argument on a device that keeps images in host memory:
// the address of this descriptor, whose layout the builtin library's image functions read
// (struct KilnImage in src/builtins/image.cl; the two must change together).
#pragma once

#include "runtime/image_description.hpp"

#include <cstddef>
#include <cstdint>

namespace kiln {

struct ImageKernelDescriptor {
  std::byte *data;
  uint64_t rowPitch;            // bytes between rows (a 1D array's layers: see layerPitch)
  uint64_t layerPitch;          // bytes between slices of a 3D image or layers of an array
  int32_t width, height, depth; // 1 where the type has no such dimension
  int32_t arraySize;            // 0 unless an array
  int32_t channelOrder, channelType, elementSize;
  int32_t imageType; // the cl_mem_object_type
};
static_assert(sizeof(ImageKernelDescriptor) == 56, "the builtin library's KilnImage layout");

inline ImageKernelDescriptor kernelDescriptorOf(const ImageDescription &image, std::byte *data) {
  auto atLeastOne = [](size_t size) { return static_cast<int32_t>(size == 0 ? 1 : size); };
  return {data,
          image.rowPitch,
          image.slicePitch,
          static_cast<int32_t>(image.width),
          atLeastOne(image.height),
          atLeastOne(image.depth),
          static_cast<int32_t>(image.arraySize),
          static_cast<int32_t>(image.format.image_channel_order),
          static_cast<int32_t>(image.format.image_channel_data_type),
          static_cast<int32_t>(image.elementSize),
          static_cast<int32_t>(image.type)};
}

} // namespace kiln
