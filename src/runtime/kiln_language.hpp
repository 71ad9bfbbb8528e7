// What Kiln's OpenCL C compiler gives every device: the language versions, the OpenCL C 3.0
// features and the extensions its front end and builtin library implement, whatever the device.
#pragma once

#include "compiler/frontend.hpp"
#include "runtime/device_info.hpp"

namespace kiln {

/// Fills the language versions, features, extensions and atomic capabilities every Kiln device
/// has; a device adds its own (images, for one) afterwards.
void describeKilnLanguage(DeviceInfo &info);

/// Adds the image features and extensions of the builtin library's image functions, which
/// every device with image support runs (reads and writes of every image type, 3D writes,
/// depth images, 2D images from buffers).
void describeImageLanguage(DeviceInfo &info);

/// The front end's target for a device: its OpenCL C versions, extensions and features.
compiler::TargetDescription compilerTargetOf(const DeviceInfo &info);

} // namespace kiln
