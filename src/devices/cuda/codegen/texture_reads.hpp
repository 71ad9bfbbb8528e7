//===- texture_reads.hpp - The builtin library's texture reads as PTX tex -===//
//
// The builtin library samples an image through the GPU's texture hardware where the runtime
// made a texture object for the image and the sampler (runtime/images/image_kernel_descriptor.hpp):
// it calls __kiln_texture_f, __kiln_texture_i or __kiln_texture_ui with the texture object, the
// image's shape (KILN_SHAPE_* of image.cl: 1, 2 or 3 dimensions, 5 and 6 for 1D and 2D arrays)
// and the coordinate (spatial coordinates, then the layer as a whole number). This step turns
// each call into NVVM's tex.unified intrinsic of that shape and result type. Run it once the
// library is inlined into the entries, where every shape is a constant.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::cuda {

llvm::Error lowerTextureReads(llvm::Module &module);

} // namespace kiln::cuda
