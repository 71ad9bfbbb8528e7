//===- image_storage.hpp - How an image's elements are laid out and stored -===//
//
// The layout of an image's elements in memory (row and slice pitches, the bytes they span) and
// the storage a new image gets: the application's memory (CL_MEM_USE_HOST_PTR), or storage of
// its own, packed, filled from the application's (CL_MEM_COPY_HOST_PTR). The API checks the
// arguments; this is what it then asks the runtime to do.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/images/image_description.hpp"

#include <cstddef>
#include <vector>

namespace kiln {

class Context;
class MemObject;

/// Sets the pitches of `image` from the application's `rowPitch` and `slicePitch` (0: packed).
/// False when a given pitch is too small or not a multiple of the element (row) size. The slice
/// pitch of 1D and 2D images is ignored.
bool setImagePitches(ImageDescription &image, size_t rowPitch, size_t slicePitch);

/// Bytes the image's elements span with its pitches.
size_t imageStorageSize(const ImageDescription &image);

/// A new image of `image`'s type, format and size, whose `flags` have been checked. With
/// CL_MEM_USE_HOST_PTR its elements are the application's at `hostPtr`, laid out as
/// `hostLayout` (a context with a device that cannot address that memory keeps a copy laid out
/// the same way); otherwise it has packed storage of its own, holding a copy of the elements at
/// `hostPtr` (laid out as `hostLayout`) with CL_MEM_COPY_HOST_PTR. Null, with `error` set, when
/// out of memory.
MemObject *createImageObject(Context &context, cl_mem_flags flags, const ImageDescription &image,
                             void *hostPtr, const ImageDescription &hostLayout,
                             std::vector<cl_mem_properties> properties, cl_int &error);

} // namespace kiln
