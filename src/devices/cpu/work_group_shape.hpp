// What a work-group function is specialized on when a kernel is enqueued: the size of the
// work-groups it runs, whether the NDRange has an offset, whether its stores stream, whether
// it may read past the ends of its buffers, and the formats of its images. Plain data shared
// by the CPU runtime, which picks the shape of each work-group, and the code generator, which
// turns the shape's sizes and formats into constants.
#pragma once

#include <array>
#include <compare>
#include <cstdint>

namespace kiln::cpu {

/// How far past a buffer's end a work-group function may read when
/// WorkGroupShape::buffersHaveReadSlack holds.
inline constexpr uint64_t kBufferReadSlackBytes = 256;

/// The format of an image a launch reads or writes, as its kernel descriptor holds it
/// (runtime/images/image_kernel_descriptor.hpp, which the CPU driver checks against the offsets
/// below); all zero where a function is not specialized on it.
struct ImageFormat {
  uint32_t channelOrder = 0; // CL_R ... (cl_channel_order)
  uint32_t channelType = 0;  // CL_SNORM_INT8 ... (cl_channel_type)
  uint32_t elementSize = 0;  // bytes per element

  friend auto operator<=>(const ImageFormat &, const ImageFormat &) = default;
};

/// Where the descriptor an image argument points to holds its format's fields.
inline constexpr uint64_t kDescriptorChannelOrderOffset = 40;
inline constexpr uint64_t kDescriptorChannelTypeOffset = 44;
inline constexpr uint64_t kDescriptorElementSizeOffset = 48;

/// Image arguments whose formats a work-group function is specialized on: the first ones, in
/// argument order (kernels rarely take more).
inline constexpr unsigned kSpecializedImages = 4;

struct WorkGroupShape {
  /// The size of the work-groups the function runs (get_local_size). Every work-group of an
  /// NDRange has the enqueued size except the last one of a dimension whose global size is not
  /// a multiple of it (non-uniform work-groups): those get a function of their own.
  std::array<uint64_t, 3> localSize{1, 1, 1};
  /// The NDRange's local size (get_enqueued_local_size).
  std::array<uint64_t, 3> enqueuedLocalSize{1, 1, 1};
  /// The global offset is zero in every dimension (the usual case: clEnqueueNDRangeKernel
  /// without an offset), so get_global_id needs no addition.
  bool zeroOffset = true;
  /// The buffers the launch writes are larger than the last-level cache: what it stores will
  /// have been evicted before anyone reads it, so whole-vector stores bypass the caches
  /// (streaming_stores.hpp).
  bool streamingStores = false;
  /// Every buffer the launch's arguments name may be read kBufferReadSlackBytes past its end, so
  /// a read ahead of a loop's reads needs no bound (indirect_prefetch.hpp).
  bool buffersHaveReadSlack = false;
  /// The formats of the kernel's first kSpecializedImages image arguments, in argument order:
  /// each image read or write then takes its format's path alone, where a function for any
  /// format would choose among every format's on each access.
  std::array<ImageFormat, kSpecializedImages> imageFormats{};

  friend auto operator<=>(const WorkGroupShape &, const WorkGroupShape &) = default;
};

} // namespace kiln::cpu
