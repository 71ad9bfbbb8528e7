// What a kernel receives for an image argument on a device that keeps images in host memory:
// the address of this descriptor, whose layout the builtin library's image functions read
// (struct KilnImage in src/builtins/image.cl; the two must change together).
#pragma once

#include "runtime/images/image_description.hpp"

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
  /// A GPU's texture objects for this image, one per sampler (kSamplerSlots, indexed by
  /// samplerSlot()), 0 where it has none (never null on a GPU); null on devices that sample in
  /// software.
  const uint64_t *textures;
};
static_assert(sizeof(ImageKernelDescriptor) == 64, "the builtin library's KilnImage layout");

/// The distinct samplers: normalized coordinates or not, five addressing modes, two filters.
inline constexpr unsigned kSamplerSlots = 20;

/// Where the texture for the sampler of CLK_* bits `bits` (Sampler::kernelBits()) is in
/// ImageKernelDescriptor::textures; the builtin library's samplerSlot() computes the same.
constexpr unsigned samplerSlot(uint32_t bits) {
  unsigned normalized = bits & 1u;
  unsigned addressing = (bits & 0xEu) >> 1; // CLK_ADDRESS_NONE 0 ... MIRRORED_REPEAT 4
  unsigned linear = (bits & 0x30u) == 0x20u ? 1u : 0u;
  return normalized + 2 * addressing + 10 * linear;
}

/// The sampler whose texture is in `slot`, in the host API's terms.
struct SlotSampler {
  bool normalizedCoords;
  cl_addressing_mode addressing;
  cl_filter_mode filter;
};
constexpr SlotSampler samplerOfSlot(unsigned slot) {
  constexpr cl_addressing_mode kAddressing[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                                CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                                CL_ADDRESS_MIRRORED_REPEAT};
  return {slot % 2 != 0, kAddressing[slot % 10 / 2],
          slot >= 10 ? cl_filter_mode{CL_FILTER_LINEAR} : cl_filter_mode{CL_FILTER_NEAREST}};
}

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
          static_cast<int32_t>(image.type),
          nullptr};
}

} // namespace kiln
