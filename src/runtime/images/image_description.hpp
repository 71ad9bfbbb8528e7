// What an image is: its type, format, size in elements and the layout of its rows and slices in
// memory. Kept by every image memory object; the host-side image commands and, later, the
// kernels' image descriptors are made from it.
#pragma once

#include "support/icd_handles.hpp"

#include <array>
#include <cstddef>

namespace kiln {

struct ImageDescription {
  cl_mem_object_type type = CL_MEM_OBJECT_IMAGE2D;
  cl_image_format format{};
  size_t elementSize = 0;
  size_t width = 0;
  size_t height = 0;    // 0 for 1D images and 1D arrays
  size_t depth = 0;     // 0 unless 3D
  size_t arraySize = 0; // 0 unless an array
  size_t rowPitch = 0;
  size_t slicePitch = 0; // 0 for 1D and 2D images

  bool isArray() const {
    return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  }

  /// The image's extent in the coordinates of region and origin arguments: 1D arrays count
  /// their layers in the second coordinate, 2D arrays in the third; unused ones are 1.
  std::array<size_t, 3> extent() const {
    switch (type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      return {width, arraySize, 1};
    case CL_MEM_OBJECT_IMAGE2D:
      return {width, height, 1};
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      return {width, height, arraySize};
    case CL_MEM_OBJECT_IMAGE3D:
      return {width, height, depth};
    default: // 1D, 1D buffer
      return {width, 1, 1};
    }
  }

  /// Bytes between consecutive rows and slices of the region coordinates: a 1D array's layers
  /// are its "rows" (slice pitch apart).
  size_t regionRowPitch() const {
    return type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slicePitch : rowPitch;
  }
  size_t regionSlicePitch() const { return slicePitch; }
};

} // namespace kiln
