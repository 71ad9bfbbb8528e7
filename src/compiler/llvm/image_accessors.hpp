//===- image_accessors.hpp - What image and sampler values are -------------===//
//
// After opaque type lowering an image or sampler value is a plain pointer. On every Kiln device
// an image is the address of its descriptor in memory the device reads (struct KilnImage of the
// builtin library, runtime/images/image_kernel_descriptor.hpp) and a sampler its CLK_* bits held in
// the pointer. OpenCL C cannot say either, so the builtin library asks through declared
// functions, and Clang asks for a program-scope sampler through
// __translate_sampler_initializer; this step replaces their calls by what they mean. It also
// says whether the device has texture hardware (__kiln_texture_hardware): a device without it
// never reaches the library's texture reads, which become poison.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// Replaces every call of __kiln_image_descriptor (the image itself), __kiln_sampler_bits (the
/// low 32 bits of the sampler), __translate_sampler_initializer (a sampler holding the bits),
/// __kiln_pipe_storage_ro/_wo (the pipe itself), __kiln_reserve_id_bits, __kiln_queue_bits and
/// __kiln_event_bits and their _from_bits (a reserve id, device queue or device event is its
/// bits, and back), and __kiln_texture_hardware (`textureHardware`); without texture hardware,
/// the calls of the __kiln_texture_* reads too. Returns how many calls it replaced.
unsigned resolveImageAccessors(llvm::Module &module, bool textureHardware);

/// Whether `function` is one of the library's texture reads (__kiln_texture_f, _i or _ui), which
/// a code generator for texture hardware lowers.
bool isTextureRead(const llvm::Function &function);

} // namespace kiln::compiler
