// Converting a color to the bytes of one image element, by the rules OpenCL C's write_image
// functions follow (the specification's "conversion rules" for each channel data type):
// clEnqueueFillImage stores its fill color this way.
#pragma once

#include "support/icd_handles.hpp"

#include <array>
#include <cstddef>

namespace kiln {

/// The element of `format` holding `color`: four floats for normalized, half and float types,
/// four cl_int for signed and four cl_uint for unsigned integer types, in R, G, B, A order
/// (depth images use the first). Only the first imageElementSize(format) bytes are used.
std::array<std::byte, 16> packImageElement(const cl_image_format &format, const void *color);

} // namespace kiln
