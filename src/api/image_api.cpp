// Image entry points: creation (every image type, host-pointer flags and pitches, images over
// buffers), clGetSupportedImageFormats and clGetImageInfo, with the specification's errors.
#include "api/api_support.hpp"
#include "api/memory_flags.hpp"
#include "runtime/images/image_format.hpp"
#include "runtime/images/image_storage.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/memory.hpp"

#include <algorithm>

using namespace kiln;
using namespace kiln::api;

namespace {

bool isImageType(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE2D ||
         type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

/// The devices of `context` that support images.
std::vector<const Device *> imageDevices(const Context &context) {
  std::vector<const Device *> devices;
  for (const Device *device : context.devices())
    if (device->info().imageSupport)
      devices.push_back(device);
  return devices;
}

/// Whether every size of `image` is within the limits of some device of the context.
bool withinDeviceLimits(const ImageDescription &image, const std::vector<const Device *> &devices) {
  return std::any_of(devices.begin(), devices.end(), [&](const Device *device) {
    const DeviceInfo &info = device->info();
    switch (image.type) {
    case CL_MEM_OBJECT_IMAGE1D:
      return image.width <= info.image2dMaxWidth;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
      return image.width <= info.imageMaxBufferSize;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      return image.width <= info.image2dMaxWidth && image.arraySize <= info.imageMaxArraySize;
    case CL_MEM_OBJECT_IMAGE2D:
      return image.width <= info.image2dMaxWidth && image.height <= info.image2dMaxHeight;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      return image.width <= info.image2dMaxWidth && image.height <= info.image2dMaxHeight &&
             image.arraySize <= info.imageMaxArraySize;
    default: // 3D
      return image.width <= info.image3dMaxWidth && image.height <= info.image3dMaxHeight &&
             image.depth <= info.image3dMaxDepth;
    }
  });
}

/// Reads the dimensions of `desc` into `image`; false when a dimension the type uses is 0.
bool readDimensions(const cl_image_desc &desc, ImageDescription &image) {
  image.type = desc.image_type;
  image.width = desc.image_width;
  switch (desc.image_type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    image.arraySize = desc.image_array_size;
    return image.width != 0 && image.arraySize != 0;
  case CL_MEM_OBJECT_IMAGE2D:
    image.height = desc.image_height;
    return image.width != 0 && image.height != 0;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    image.height = desc.image_height;
    image.arraySize = desc.image_array_size;
    return image.width != 0 && image.height != 0 && image.arraySize != 0;
  case CL_MEM_OBJECT_IMAGE3D:
    image.height = desc.image_height;
    image.depth = desc.image_depth;
    return image.width != 0 && image.height != 0 && image.depth != 0;
  default:
    return image.width != 0;
  }
}

/// An image whose elements live in `buffer` (1D buffer images, cl_khr_image2d_from_buffer).
cl_mem createImageOverBuffer(Context &context, cl_mem_flags flags, ImageDescription &image,
                             const cl_image_desc &desc, void *hostPtr,
                             std::vector<cl_mem_properties> properties,
                             const std::vector<const Device *> &devices, cl_int &error) {
  MemObject *buffer = toObject<MemObject>(desc.buffer);
  if (buffer == nullptr || buffer->type() != CL_MEM_OBJECT_BUFFER ||
      &buffer->context() != &context || hostPtr != nullptr) {
    error = buffer == nullptr || buffer->type() != CL_MEM_OBJECT_BUFFER
                ? CL_INVALID_IMAGE_DESCRIPTOR
                : CL_INVALID_VALUE;
    return nullptr;
  }
  cl_mem_flags readAndWrite = flags & CL_MEM_KERNEL_READ_AND_WRITE;
  if (!inheritFlags(buffer->flags(), flags & ~readAndWrite, flags)) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  flags |= readAndWrite;
  image.rowPitch =
      desc.image_row_pitch != 0 ? desc.image_row_pitch : image.width * image.elementSize;
  if (image.type == CL_MEM_OBJECT_IMAGE2D) {
    // cl_khr_image2d_from_buffer: the pitch is a multiple of the device's pitch alignment.
    bool aligned = std::all_of(devices.begin(), devices.end(), [&](const Device *device) {
      cl_uint pixels = std::max<cl_uint>(1, device->info().imagePitchAlignment);
      return image.rowPitch % (pixels * image.elementSize) == 0;
    });
    if (image.rowPitch < image.width * image.elementSize || !aligned) {
      error = CL_INVALID_IMAGE_DESCRIPTOR;
      return nullptr;
    }
  }
  size_t needed = image.type == CL_MEM_OBJECT_IMAGE2D ? image.rowPitch * image.height
                                                      : image.width * image.elementSize;
  if (needed > buffer->size()) {
    error = CL_INVALID_IMAGE_SIZE;
    return nullptr;
  }
  return createObject<MemObject>(*buffer, flags, image, needed, std::move(properties));
}

cl_mem createImage(cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
                   const cl_image_format *format, const cl_image_desc *desc, void *hostPtr,
                   cl_int &error) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr) {
    error = CL_INVALID_CONTEXT;
    return nullptr;
  }
  std::vector<cl_mem_properties> propertyList;
  if (!readMemoryProperties(properties, propertyList)) {
    error = CL_INVALID_PROPERTY;
    return nullptr;
  }
  constexpr cl_mem_flags kernelReadAndWrite = CL_MEM_KERNEL_READ_AND_WRITE;
  if (!hasValidAccessFlags(flags & ~kernelReadAndWrite)) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  if (format == nullptr || !isValidImageFormat(*format)) {
    error = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
    return nullptr;
  }
  ImageDescription image;
  image.format = *format;
  image.elementSize = imageElementSize(*format);
  bool overBuffer =
      desc != nullptr && (desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                          (desc->image_type == CL_MEM_OBJECT_IMAGE2D && desc->buffer != nullptr));
  if (desc == nullptr || !isImageType(desc->image_type) || desc->num_mip_levels != 0 ||
      desc->num_samples != 0 || (desc->buffer != nullptr && !overBuffer) ||
      (desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER && desc->buffer == nullptr)) {
    error = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  std::vector<const Device *> devices = imageDevices(*owner);
  if (devices.empty()) {
    error = CL_INVALID_OPERATION;
    return nullptr;
  }
  if (!readDimensions(*desc, image) || !withinDeviceLimits(image, devices)) {
    error = CL_INVALID_IMAGE_SIZE;
    return nullptr;
  }
  std::vector<cl_image_format> supported = hostImageFormats(image.type, flags);
  if (std::none_of(supported.begin(), supported.end(),
                   [&](const cl_image_format &entry) { return sameFormat(entry, *format); })) {
    error = CL_IMAGE_FORMAT_NOT_SUPPORTED;
    return nullptr;
  }
  if (overBuffer)
    return createImageOverBuffer(*owner, flags, image, *desc, hostPtr, std::move(propertyList),
                                 devices, error);

  bool needsHostPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (needsHostPtr != (hostPtr != nullptr)) {
    error = CL_INVALID_HOST_PTR;
    return nullptr;
  }
  // "image_row_pitch must be 0 if host_ptr is NULL" (likewise the slice pitch).
  if (hostPtr == nullptr && (desc->image_row_pitch != 0 || desc->image_slice_pitch != 0)) {
    error = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  ImageDescription hostLayout = image;
  if (!setImagePitches(hostLayout, desc->image_row_pitch, desc->image_slice_pitch)) {
    error = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  if (!(flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY | kernelReadAndWrite)))
    flags |= CL_MEM_READ_WRITE;
  return createImageObject(*owner, flags, image, hostPtr, hostLayout, std::move(propertyList),
                           error);
}

/// The cl_image_desc of the OpenCL 1.1 entry points.
cl_image_desc legacyDesc(cl_mem_object_type type, size_t width, size_t height, size_t depth,
                         size_t rowPitch, size_t slicePitch) {
  cl_image_desc desc{};
  desc.image_type = type;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_depth = depth;
  desc.image_row_pitch = rowPitch;
  desc.image_slice_pitch = slicePitch;
  return desc;
}

} // namespace

KILN_API cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                          const cl_image_format *image_format,
                                          const cl_image_desc *image_desc, void *host_ptr,
                                          cl_int *errcode_ret) {
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createImage(context, nullptr, flags, image_format, image_desc, host_ptr, error);
  });
}

KILN_API cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context,
                                                        const cl_mem_properties *properties,
                                                        cl_mem_flags flags,
                                                        const cl_image_format *image_format,
                                                        const cl_image_desc *image_desc,
                                                        void *host_ptr, cl_int *errcode_ret) {
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createImage(context, properties, flags, image_format, image_desc, host_ptr, error);
  });
}

KILN_API cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                            const cl_image_format *image_format, size_t image_width,
                                            size_t image_height, size_t image_row_pitch,
                                            void *host_ptr, cl_int *errcode_ret) {
  cl_image_desc desc =
      legacyDesc(CL_MEM_OBJECT_IMAGE2D, image_width, image_height, 0, image_row_pitch, 0);
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createImage(context, nullptr, flags, image_format, &desc, host_ptr, error);
  });
}

KILN_API cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                            const cl_image_format *image_format, size_t image_width,
                                            size_t image_height, size_t image_depth,
                                            size_t image_row_pitch, size_t image_slice_pitch,
                                            void *host_ptr, cl_int *errcode_ret) {
  cl_image_desc desc = legacyDesc(CL_MEM_OBJECT_IMAGE3D, image_width, image_height, image_depth,
                                  image_row_pitch, image_slice_pitch);
  return guardCreate<cl_mem>(errcode_ret, [&](cl_int &error) {
    return createImage(context, nullptr, flags, image_format, &desc, host_ptr, error);
  });
}

KILN_API cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                       cl_mem_object_type image_type,
                                                       cl_uint num_entries,
                                                       cl_image_format *image_formats,
                                                       cl_uint *num_image_formats) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr)
    return CL_INVALID_CONTEXT;
  constexpr cl_mem_flags kernelAccess = CL_MEM_KERNEL_READ_AND_WRITE;
  if (!hasValidAccessFlags(flags & ~kernelAccess) || !isImageType(image_type) ||
      (num_entries == 0 && image_formats != nullptr))
    return CL_INVALID_VALUE;
  return guard([&] {
    std::vector<cl_image_format> formats;
    if (!imageDevices(*owner).empty())
      formats = hostImageFormats(image_type, flags);
    if (image_formats != nullptr)
      std::copy_n(formats.begin(), std::min<size_t>(num_entries, formats.size()), image_formats);
    if (num_image_formats != nullptr)
      *num_image_formats = static_cast<cl_uint>(formats.size());
    return CL_SUCCESS;
  });
}

KILN_API cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name,
                                           size_t param_value_size, void *param_value,
                                           size_t *param_value_size_ret) {
  MemObject *self = toObject<MemObject>(image);
  if (self == nullptr || self->image() == nullptr)
    return CL_INVALID_MEM_OBJECT;
  const ImageDescription &description = *self->image();
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_IMAGE_FORMAT:
      return out(description.format);
    case CL_IMAGE_ELEMENT_SIZE:
      return out(description.elementSize);
    case CL_IMAGE_ROW_PITCH:
      return out(description.rowPitch);
    case CL_IMAGE_SLICE_PITCH:
      return out(description.slicePitch);
    case CL_IMAGE_WIDTH:
      return out(description.width);
    case CL_IMAGE_HEIGHT:
      return out(description.height);
    case CL_IMAGE_DEPTH:
      return out(description.depth);
    case CL_IMAGE_ARRAY_SIZE:
      return out(description.arraySize);
    case CL_IMAGE_BUFFER:
      return out(static_cast<cl_mem>(self->parent()));
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES:
      return out(cl_uint{0});
    default:
      return CL_INVALID_VALUE;
    }
  });
}
