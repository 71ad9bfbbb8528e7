//===- image_accessors.hpp - What image and sampler values are on the CPU -===//
//
// After opaque type lowering an image or sampler value is a plain pointer. On the CPU an image
// is the address of its descriptor in host memory (struct KilnImage of the builtin library,
// runtime/image_kernel_descriptor.hpp) and a sampler is its CLK_* bits held in the pointer.
// OpenCL C cannot say either, so the builtin library asks through two declared functions, and
// Clang asks for a program-scope sampler through __translate_sampler_initializer; this step
// replaces their calls by what they mean.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::cpu {

/// Replaces every call of __kiln_image_descriptor (the image itself), __kiln_sampler_bits (the
/// low 32 bits of the sampler) and __translate_sampler_initializer (a sampler holding the
/// bits). Returns how many calls it replaced.
unsigned resolveImageAccessors(llvm::Module &module);

} // namespace kiln::cpu
