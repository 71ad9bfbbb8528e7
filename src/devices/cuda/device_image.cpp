#include "devices/cuda/device_image.hpp"

#include "devices/cuda/current_context.hpp"

#include <memory>
#include <optional>

namespace kiln::cuda {
namespace {

/// The channels of a CUDA array holding elements of `order`: 0 where CUDA has no array that
/// holds them as they are (three channels, padding, depth). sRGB elements are held as their
/// bytes, which the library converts (image.cl).
unsigned arrayChannels(cl_channel_order order) {
  switch (order) {
  case CL_R:
  case CL_A:
  case CL_INTENSITY:
  case CL_LUMINANCE:
    return 1;
  case CL_RG:
  case CL_RA:
    return 2;
  case CL_RGBA:
  case CL_BGRA:
  case CL_ARGB:
  case CL_ABGR:
  case CL_sRGBA:
  case CL_sBGRA:
    return 4;
  default:
    return 0;
  }
}

/// The CUDA array format of `type`, when CUDA has one (no packed or 24-bit types).
std::optional<CUarray_format> arrayFormat(cl_channel_type type) {
  switch (type) {
  case CL_UNORM_INT8:
  case CL_UNSIGNED_INT8:
    return CU_AD_FORMAT_UNSIGNED_INT8;
  case CL_UNORM_INT16:
  case CL_UNSIGNED_INT16:
    return CU_AD_FORMAT_UNSIGNED_INT16;
  case CL_UNSIGNED_INT32:
    return CU_AD_FORMAT_UNSIGNED_INT32;
  case CL_SNORM_INT8:
  case CL_SIGNED_INT8:
    return CU_AD_FORMAT_SIGNED_INT8;
  case CL_SNORM_INT16:
  case CL_SIGNED_INT16:
    return CU_AD_FORMAT_SIGNED_INT16;
  case CL_SIGNED_INT32:
    return CU_AD_FORMAT_SIGNED_INT32;
  case CL_HALF_FLOAT:
    return CU_AD_FORMAT_HALF;
  case CL_FLOAT:
    return CU_AD_FORMAT_FLOAT;
  default:
    return std::nullopt;
  }
}

/// Whether read_imagei/read_imageui read `type` (the texture must not normalize it).
bool isIntegerType(cl_channel_type type) {
  switch (type) {
  case CL_SIGNED_INT8:
  case CL_SIGNED_INT16:
  case CL_SIGNED_INT32:
  case CL_UNSIGNED_INT8:
  case CL_UNSIGNED_INT16:
  case CL_UNSIGNED_INT32:
    return true;
  default:
    return false;
  }
}

/// The CUDA array shape of `image`; nullopt for types without one (1D buffer images, which
/// kernels only read without a sampler).
std::optional<CUDA_ARRAY3D_DESCRIPTOR> arrayShape(const ImageDescription &image) {
  std::optional<CUarray_format> format = arrayFormat(image.format.image_channel_data_type);
  unsigned channels = arrayChannels(image.format.image_channel_order);
  if (!format || channels == 0)
    return std::nullopt;
  CUDA_ARRAY3D_DESCRIPTOR shape{};
  shape.Format = *format;
  shape.NumChannels = channels;
  shape.Width = image.width;
  switch (image.type) {
  case CL_MEM_OBJECT_IMAGE1D:
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    shape.Height = image.height;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    shape.Height = image.height;
    shape.Depth = image.depth;
    break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    shape.Depth = image.arraySize;
    shape.Flags = CUDA_ARRAY3D_LAYERED;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    shape.Height = image.height;
    shape.Depth = image.arraySize;
    shape.Flags = CUDA_ARRAY3D_LAYERED;
    break;
  default:
    return std::nullopt;
  }
  return shape;
}

/// Whether the texture units' linear filter serves `image` sampled with `addressing`. Their
/// weights have 8 fractional bits: along one or two axes that keeps a filtered value within the
/// conformance suite's bound (2^-7 of the largest texel weighed), for unsigned normalized and
/// float texels. Not served, where the library weighs the texels itself (image.cl,
/// textureLinear):
///  - 3D images, where the errors of three weights add up past the bound (the suite's 3D
///    half-float cases failed);
///  - sRGB, whose texels must be made linear before they are weighed (the array holds bytes);
///  - signed normalized texels and the border of CL_ADDRESS_CLAMP, which the texture units blend
///    differently from the specification (the suite's linear-filter test failed those cases).
bool filtersInHardware(const ImageDescription &image, cl_addressing_mode addressing) {
  const cl_image_format &format = image.format;
  if (image.type == CL_MEM_OBJECT_IMAGE3D || addressing == CL_ADDRESS_CLAMP ||
      format.image_channel_order == CL_sRGBA || format.image_channel_order == CL_sBGRA)
    return false;
  switch (format.image_channel_data_type) {
  case CL_UNORM_INT8:
  case CL_UNORM_INT16:
  case CL_HALF_FLOAT:
  case CL_FLOAT:
    return true;
  default:
    return false;
  }
}

/// How a CUDA texture samples `image` as the OpenCL sampler in `slot` says; nullopt for the
/// samplers it does not serve: linear filtering that filtersInHardware() refuses, and repeat
/// modes without normalized coordinates, which OpenCL leaves undefined.
std::optional<CUDA_TEXTURE_DESC> samplingOf(unsigned slot, const ImageDescription &image) {
  SlotSampler sampler = samplerOfSlot(slot);
  bool linear = sampler.filter == CL_FILTER_LINEAR;
  if (linear && !filtersInHardware(image, sampler.addressing))
    return std::nullopt;
  CUaddress_mode mode = CU_TR_ADDRESS_MODE_CLAMP; // NONE and CLAMP_TO_EDGE
  switch (sampler.addressing) {
  case CL_ADDRESS_CLAMP:
    mode = CU_TR_ADDRESS_MODE_BORDER; // transparent black, before the channel order's swizzle
    break;
  case CL_ADDRESS_REPEAT:
    mode = CU_TR_ADDRESS_MODE_WRAP;
    break;
  case CL_ADDRESS_MIRRORED_REPEAT:
    mode = CU_TR_ADDRESS_MODE_MIRROR;
    break;
  default:
    break;
  }
  if (!sampler.normalizedCoords &&
      (mode == CU_TR_ADDRESS_MODE_WRAP || mode == CU_TR_ADDRESS_MODE_MIRROR))
    return std::nullopt;
  CUDA_TEXTURE_DESC sampling{};
  sampling.addressMode[0] = sampling.addressMode[1] = sampling.addressMode[2] = mode;
  sampling.filterMode = linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
  sampling.flags =
      (sampler.normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
      (isIntegerType(image.format.image_channel_data_type) ? CU_TRSF_READ_AS_INTEGER : 0);
  return sampling;
}

} // namespace

DeviceImage::DeviceImage(ConstructionKey, std::shared_ptr<const CudaLibrary> cuda,
                         CUcontext context, const MemObject &image)
    : cuda_(std::move(cuda)), context_(context), memory_(image) {}

std::shared_ptr<DeviceImage> DeviceImage::create(std::shared_ptr<const CudaLibrary> cuda,
                                                 CUcontext context, const MemObject &image) {
  auto deviceImage =
      std::make_shared<DeviceImage>(ConstructionKey{}, std::move(cuda), context, image);
  CUdeviceptr table = 0;
  if (deviceImage->cuda_->memAllocManaged(&table, sizeof(DescriptorTable), CU_MEM_ATTACH_GLOBAL) !=
      CUDA_SUCCESS)
    return nullptr;
  deviceImage->table_ = std::construct_at(reinterpret_cast<DescriptorTable *>(table));
  deviceImage->table_->descriptor = *image.kernelDescriptor();
  deviceImage->createTextures();
  // Never null on the GPU, all zeros without an array: the library then loads a read's texture
  // without first testing the table, and a loop's reads find theirs before the loop.
  deviceImage->table_->descriptor.textures = deviceImage->table_->textures.data();
  return deviceImage;
}

void DeviceImage::createTextures() {
  std::optional<CUDA_ARRAY3D_DESCRIPTOR> shape = arrayShape(*memory_.image());
  if (!shape || cuda_->array3DCreate(&array_, &*shape) != CUDA_SUCCESS) {
    array_ = nullptr;
    return;
  }
  CUDA_RESOURCE_DESC resource{};
  resource.resType = CU_RESOURCE_TYPE_ARRAY;
  resource.res.array.hArray = array_;
  for (unsigned slot = 0; slot < kSamplerSlots; ++slot) {
    std::optional<CUDA_TEXTURE_DESC> sampling = samplingOf(slot, *memory_.image());
    CUtexObject texture = 0;
    // A sampler CUDA cannot express stays 0: the library samples in software.
    if (sampling &&
        cuda_->texObjectCreate(&texture, &resource, &*sampling, nullptr) == CUDA_SUCCESS)
      table_->textures[slot] = texture;
  }
}

DeviceImage::~DeviceImage() {
  CurrentContext current(*cuda_, context_);
  if (table_ != nullptr) {
    for (uint64_t texture : table_->textures)
      if (texture != 0)
        cuda_->texObjectDestroy(texture);
    cuda_->memFree(reinterpret_cast<CUdeviceptr>(table_));
  }
  if (array_ != nullptr)
    cuda_->arrayDestroy(array_);
}

bool DeviceImage::refreshTextures(CUstream stream) const {
  if (array_ == nullptr)
    return true;
  // Read before the copy is queued: a write queued meanwhile moves the version past it. An
  // image over a buffer's storage changes with the buffer's writes, which no version counts.
  uint64_t version = memory_.contentsVersion();
  bool overBuffer = memory_.parent() != nullptr;
  if (!overBuffer && arrayVersion_.load(std::memory_order_acquire) == version)
    return true;
  const ImageDescription &image = *memory_.image();
  CUDA_MEMCPY3D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(memory_.data());
  copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  copy.dstArray = array_;
  copy.WidthInBytes = image.width * image.elementSize;
  std::array<size_t, 3> extent = image.extent();
  if (image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    // One row per layer, the layers a slice pitch apart.
    copy.Height = 1;
    copy.Depth = extent[1];
    copy.srcPitch = image.slicePitch;
    copy.srcHeight = 1;
  } else {
    copy.Height = extent[1];
    copy.Depth = extent[2];
    copy.srcPitch = image.rowPitch;
    copy.srcHeight = extent[2] > 1 ? image.slicePitch / image.rowPitch : extent[1];
  }
  if (cuda_->memcpy3DAsync(&copy, stream) != CUDA_SUCCESS)
    return false;
  arrayVersion_.store(version, std::memory_order_release);
  return true;
}

} // namespace kiln::cuda
