//===- image_format_constants.hpp - Image formats known per launch -------===//
//
// An image argument is the address of its descriptor, whose channel order, channel type and
// element size the builtin library reads at every access and branches on (builtins/image.cl).
// A work-group function specialized on the formats of a launch's images
// (WorkGroupShape::imageFormats) reads them as constants instead: each access folds to one
// format's load and conversion, and a texel's address to a multiple of a constant size, which
// the vectorizer turns into vector loads where work-items read neighbouring texels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/work_group_shape.hpp"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

#include <array>

namespace kiln::cpu {

/// Marks `read`, the prologue's read of an image argument from the argument block, as the
/// kernel's image argument number `ordinal` (counting image arguments only).
void markImageArgument(llvm::LoadInst &read, unsigned ordinal);

/// Replaces the reads of the format fields of each marked image argument whose format
/// `formats` gives by its values. Returns how many reads it replaced.
unsigned substituteImageFormats(llvm::Function &function,
                                const std::array<ImageFormat, kSpecializedImages> &formats);

} // namespace kiln::cpu
