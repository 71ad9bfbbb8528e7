// What the GPU keeps for one image. Its elements stay in the memory object, in memory the host,
// the CPU device and the GPU all address: reads without a sampler and writes go there, in
// software (the builtin library's image code). Sampled reads use the texture hardware: where the
// format and shape allow, the image also has a CUDA array, a copy of the elements remade before a
// launch that may sample it when a command may have written them since the last copy, and a texture
// object per sampler (the sampler's addressing and coordinate mode are part of a CUDA texture).
// Linear filtering of the formats and modes whose filter the texture units do not match fetches
// texels through a texture and weighs them in software (device_image.cpp says which). The kernel
// gets a descriptor in managed memory that names both (runtime/images/image_kernel_descriptor.hpp).
#pragma once

#include "devices/cuda/cuda_library.hpp"
#include "runtime/images/image_kernel_descriptor.hpp"
#include "runtime/objects/memory.hpp"

#include <array>
#include <atomic>
#include <memory>

namespace kiln::cuda {

class DeviceImage {
  struct ConstructionKey {};

public:
  /// The GPU's image for `image` (the context of `context` being current); null when out of
  /// memory. An image whose format or shape CUDA arrays lack is sampled in software.
  static std::shared_ptr<DeviceImage> create(std::shared_ptr<const CudaLibrary> cuda,
                                             CUcontext context, const MemObject &image);
  DeviceImage(ConstructionKey, std::shared_ptr<const CudaLibrary> cuda, CUcontext context,
              const MemObject &image);
  ~DeviceImage();
  DeviceImage(const DeviceImage &) = delete;
  DeviceImage &operator=(const DeviceImage &) = delete;

  /// What a kernel receives for the image: the address of its descriptor.
  const ImageKernelDescriptor *kernelDescriptor() const { return &table_->descriptor; }

  /// Puts a copy of the image's elements into the array on `stream`, for the textures; nothing
  /// when the image has none, or when the array holds the elements as they are since no command
  /// has written them (MemObject::contentsVersion()). False when CUDA refuses.
  bool refreshTextures(CUstream stream) const;

private:
  /// The managed memory a kernel reads: the descriptor, then its textures.
  struct DescriptorTable {
    ImageKernelDescriptor descriptor;
    std::array<uint64_t, kSamplerSlots> textures;
  };

  void createTextures();

  std::shared_ptr<const CudaLibrary> cuda_;
  CUcontext context_;
  const MemObject &memory_; // which owns this object
  /// The contents version the array holds; kNeverCopied before its first copy.
  static constexpr uint64_t kNeverCopied = ~uint64_t{0};
  mutable std::atomic<uint64_t> arrayVersion_{kNeverCopied};
  DescriptorTable *table_ = nullptr;
  CUarray array_ = nullptr;
};

} // namespace kiln::cuda
