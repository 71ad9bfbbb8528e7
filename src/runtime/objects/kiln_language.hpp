// What Kiln's OpenCL C compiler gives every device: the language versions, the OpenCL C 3.0
// features and the extensions its front end and builtin library implement, whatever the device.
#pragma once

#include "compiler/frontend.hpp"
#include "runtime/objects/device_info.hpp"

namespace kiln {

/// Fills the language versions, the features and extensions the extension table gives the
/// device's type (runtime/objects/extension_table.hpp) and the atomic capabilities every Kiln
/// device has; a device adds its own (images, for one) afterwards. Needs `info.type` set.
void describeKilnLanguage(DeviceInfo &info);

/// Image support as the builtin library's image functions give it to every device: the limits
/// (the specification's minimums for a full-profile device or more; a device lowers the sizes
/// its hardware cannot take), and the features and extensions (reads and writes of every image
/// type, 3D writes, depth images, 2D images from buffers: the extension table's image rows).
/// Needs maxMemAllocSize and type set.
void describeKilnImages(DeviceInfo &info);

/// The front end's target for a device: its OpenCL C versions, extensions and features.
compiler::TargetDescription compilerTargetOf(const DeviceInfo &info);

} // namespace kiln
