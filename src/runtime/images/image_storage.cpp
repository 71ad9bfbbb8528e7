//===- image_storage.cpp - How an image's elements are laid out and stored -===//
#include "runtime/images/image_storage.hpp"

#include "runtime/objects/context.hpp"
#include "runtime/objects/memory.hpp"

#include <cstring>

namespace kiln {
namespace {

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
MemObject *useHostMemory(Context &context, cl_mem_flags flags, const ImageDescription &layout,
                         void *hostPtr, std::vector<cl_mem_properties> properties, cl_int &error) {
  size_t size = imageStorageSize(layout);
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

} // namespace

bool setImagePitches(ImageDescription &image, size_t rowPitch, size_t slicePitch) {
  size_t packedRow = image.width * image.elementSize;
  image.rowPitch = rowPitch != 0 ? rowPitch : packedRow;
  if (image.rowPitch < packedRow || image.rowPitch % image.elementSize != 0)
    return false;
  bool hasSlices = image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                   image.type == CL_MEM_OBJECT_IMAGE2D_ARRAY || image.type == CL_MEM_OBJECT_IMAGE3D;
  if (!hasSlices)
    return true; // the slice pitch of 1D and 2D images is ignored
  size_t packedSlice = image.rowPitch * rowsPerSlice(image);
  image.slicePitch = slicePitch != 0 ? slicePitch : packedSlice;
  return image.slicePitch >= packedSlice && image.slicePitch % image.rowPitch == 0;
}

size_t imageStorageSize(const ImageDescription &image) {
  size_t slices = sliceCount(image);
  if (image.slicePitch != 0)
    return image.slicePitch * slices;
  return image.rowPitch * image.extent()[1];
}

MemObject *createImageObject(Context &context, cl_mem_flags flags, const ImageDescription &image,
                             void *hostPtr, const ImageDescription &hostLayout,
                             std::vector<cl_mem_properties> properties, cl_int &error) {
  if (flags & CL_MEM_USE_HOST_PTR)
    return useHostMemory(context, flags, hostLayout, hostPtr, std::move(properties), error);
  ImageDescription packed = image;
  setImagePitches(packed, 0, 0);
  size_t size = imageStorageSize(packed);
  AlignedStorage storage = context.allocateStorage(size, placementOf(flags));
  if (!storage) {
    error = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
  }
  if (flags & CL_MEM_COPY_HOST_PTR)
    copyImageElements(storage.get(), packed, static_cast<const std::byte *>(hostPtr), hostLayout);
  return createObject<MemObject>(context, flags, packed, size, nullptr, std::move(storage),
                                 std::move(properties));
}

} // namespace kiln
