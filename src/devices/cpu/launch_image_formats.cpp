#include "devices/cpu/launch_image_formats.hpp"

#include "runtime/images/image_kernel_descriptor.hpp"

#include <cstddef>

namespace kiln::cpu {

static_assert(offsetof(ImageKernelDescriptor, channelOrder) == kDescriptorChannelOrderOffset &&
                  offsetof(ImageKernelDescriptor, channelType) == kDescriptorChannelTypeOffset &&
                  offsetof(ImageKernelDescriptor, elementSize) == kDescriptorElementSizeOffset,
              "the code generator finds an image's format where its descriptor holds it");

std::array<ImageFormat, kSpecializedImages> launchImageFormatsOf(const KernelLaunch &launch) {
  std::array<ImageFormat, kSpecializedImages> formats{};
  const std::vector<compiler::KernelArgInfo> &args = launch.kernel->info().args;
  // memObjects are in argument order, so the images among them come in the order of their
  // ordinals among the kernel's image arguments.
  unsigned ordinal = 0;
  uint32_t nextArgument = 0;
  for (const LaunchMemObject &named : launch.arguments.memObjects) {
    for (; nextArgument < named.argument; ++nextArgument)
      ordinal += args[nextArgument].kind == compiler::ArgKind::Image ? 1 : 0;
    if (args[named.argument].kind != compiler::ArgKind::Image)
      continue;
    if (ordinal >= kSpecializedImages)
      break;
    if (const ImageDescription *image = named.memory->image())
      formats[ordinal] = {static_cast<uint32_t>(image->format.image_channel_order),
                          static_cast<uint32_t>(image->format.image_channel_data_type),
                          static_cast<uint32_t>(image->elementSize)};
  }
  return formats;
}

} // namespace kiln::cpu
