// The formats of the images a launch names, which its work-group functions are specialized on
// (WorkGroupShape::imageFormats): a read of an image whose format is known at compile time is
// one format's load and conversion, with its element size a constant, which the vectorizer
// turns into vector loads, where a read of any format branches on the format at every access.
#pragma once

#include "devices/cpu/work_group_shape.hpp"
#include "runtime/scheduling/command.hpp"

#include <array>

namespace kiln::cpu {

/// The formats of `launch`'s first kSpecializedImages image arguments, in argument order.
std::array<ImageFormat, kSpecializedImages> launchImageFormatsOf(const KernelLaunch &launch);

} // namespace kiln::cpu
