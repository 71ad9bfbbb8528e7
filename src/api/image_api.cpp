// Image entry points: creation (every image type, host-pointer flags and pitches, images over
// buffers), clGetSupportedImageFormats and clGetImageInfo, with the specification's errors.
#include "api/api_support.hpp"
#include "api/memory_flags.hpp"
#include "runtime/context.hpp"
#include "runtime/device.hpp"
#include "runtime/image_format.hpp"
#include "runtime/memory.hpp"

#include <algorithm>
#include <cstring>

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

/// The rows of one slice (2D arrays and 3D images) and the slices of the image.
size_t rowsPerSlice(const ImageDescription &image) {
  return image.type == CL_MEM_OBJECT_IMAGE2D_ARRAY || image.type == CL_MEM_OBJECT_IMAGE3D
             ? image.height
             : 1;
}
size_t sliceCount(const ImageDescription &image) {
  std::array<size_t, 3> extent = image.extent();
  return image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? extent[1] : extent[2];
}

/// Fills the pitches of `image` from the application's (0: packed); false when a given pitch is
/// too small or not a multiple of the element size.
bool choosePitches(const cl_image_desc &desc, ImageDescription &image) {
  size_t packedRow = image.width * image.elementSize;
  image.rowPitch = desc.image_row_pitch != 0 ? desc.image_row_pitch : packedRow;
  if (image.rowPitch < packedRow || image.rowPitch % image.elementSize != 0)
    return false;
  bool hasSlices = image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                   image.type == CL_MEM_OBJECT_IMAGE2D_ARRAY || image.type == CL_MEM_OBJECT_IMAGE3D;
  if (!hasSlices)
    return true; // the slice pitch of 1D and 2D images is ignored
  size_t packedSlice = image.rowPitch * rowsPerSlice(image);
  image.slicePitch = desc.image_slice_pitch != 0 ? desc.image_slice_pitch : packedSlice;
  return image.slicePitch >= packedSlice && image.slicePitch % image.rowPitch == 0;
}

/// Bytes the image's elements span with its pitches.
size_t storageSize(const ImageDescription &image) {
  size_t slices = sliceCount(image);
  if (image.slicePitch != 0)
    return image.slicePitch * slices;
  return image.rowPitch * image.extent()[1];
}

/// Copies a host image with the layout `from` into storage with the layout `to`.
void copyImageElements(std::byte *to, const ImageDescription &toLayout, const std::byte *from,
                       const ImageDescription &fromLayout) {
  std::array<size_t, 3> extent = toLayout.extent();
  size_t rowBytes = extent[0] * toLayout.elementSize;
  for (size_t slice = 0; slice < extent[2]; ++slice)
    for (size_t row = 0; row < extent[1]; ++row)
      std::memcpy(to + slice * toLayout.regionSlicePitch() + row * toLayout.regionRowPitch(),
                  from + slice * fromLayout.regionSlicePitch() + row * fromLayout.regionRowPitch(),
                  rowBytes);
}

/// A CL_MEM_USE_HOST_PTR image: the application's memory, with its pitches. A context with a
/// device that cannot address that memory (a GPU) keeps a copy laid out the same way, which
/// maps copy back and forth (as for buffers).
cl_mem useHostMemory(Context &context, cl_mem_flags flags, const ImageDescription &layout,
                     void *hostPtr, std::vector<cl_mem_properties> properties, cl_int &error) {
  size_t size = storageSize(layout);
  AlignedStorage copy;
  if (context.hasDeviceMemory()) {
    copy = context.allocateStorage(size);
    if (!copy) {
      error = CL_MEM_OBJECT_ALLOCATION_FAILURE;
      return nullptr;
    }
    std::memcpy(copy.get(), hostPtr, size);
  }
  return createObject<MemObject>(context, flags, layout, size, hostPtr, std::move(copy),
                                 std::move(properties));
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
  if (!choosePitches(*desc, hostLayout)) {
    error = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  if (!(flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY | kernelReadAndWrite)))
    flags |= CL_MEM_READ_WRITE;

  if (flags & CL_MEM_USE_HOST_PTR)
    return useHostMemory(*owner, flags, hostLayout, hostPtr, std::move(propertyList), error);
  ImageDescription packed = image;
  cl_image_desc noPitches = *desc;
  noPitches.image_row_pitch = noPitches.image_slice_pitch = 0;
  choosePitches(noPitches, packed);
  size_t size = storageSize(packed);
  AlignedStorage storage = owner->allocateStorage(size, placementOf(flags));
  if (!storage) {
    error = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
  }
  if (flags & CL_MEM_COPY_HOST_PTR)
    copyImageElements(storage.get(), packed, static_cast<const std::byte *>(hostPtr), hostLayout);
  return createObject<MemObject>(*owner, flags, packed, size, nullptr, std::move(storage),
                                 std::move(propertyList));
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
