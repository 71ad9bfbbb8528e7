// The image formats of OpenCL (cl_image_format: channel order and channel data type): which
// pairs the specification allows, how many bytes an element takes, and which ones Kiln's devices
// store. Shared by image creation, clGetSupportedImageFormats and the host-side image commands.
#pragma once

#include "support/icd_handles.hpp"

#include <cstddef>
#include <vector>

namespace kiln {

/// Whether the specification allows `format` (an order with a data type it may take);
/// CL_INVALID_IMAGE_FORMAT_DESCRIPTOR otherwise.
bool isValidImageFormat(const cl_image_format &format);

/// Channels of `order` (CL_RGBA: 4; CL_RGB with a packed type: 3, in one element).
unsigned channelCount(cl_channel_order order);

/// Bytes of one element (pixel) of a valid `format`.
size_t imageElementSize(const cl_image_format &format);

/// The formats a device that stores images in host memory supports for images of `type`
/// accessed as `flags` say (read, write or both), for clGetSupportedImageFormats.
std::vector<cl_image_format> hostImageFormats(cl_mem_object_type type, cl_mem_flags flags);

bool sameFormat(const cl_image_format &left, const cl_image_format &right);

} // namespace kiln
