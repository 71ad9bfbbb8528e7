#include "runtime/objects/sampler.hpp"

#include "runtime/objects/context.hpp"

namespace kiln {

Sampler::Sampler(Context &context, bool normalizedCoords, cl_addressing_mode addressing,
                 cl_filter_mode filter, std::vector<cl_sampler_properties> properties)
    : context_(&context), normalizedCoords_(normalizedCoords), addressing_(addressing),
      filter_(filter), properties_(std::move(properties)) {}

Sampler::~Sampler() = default;

cl_uint Sampler::kernelBits() const {
  // The values of OpenCL C's CLK_* sampler constants (opencl-c-base.h).
  constexpr cl_uint kNormalizedCoords = 0x1, kFilterNearest = 0x10, kFilterLinear = 0x20;
  cl_uint addressing = 0;
  switch (addressing_) {
  case CL_ADDRESS_CLAMP_TO_EDGE:
    addressing = 0x2;
    break;
  case CL_ADDRESS_CLAMP:
    addressing = 0x4;
    break;
  case CL_ADDRESS_REPEAT:
    addressing = 0x6;
    break;
  case CL_ADDRESS_MIRRORED_REPEAT:
    addressing = 0x8;
    break;
  default: // CL_ADDRESS_NONE
    break;
  }
  return (normalizedCoords_ ? kNormalizedCoords : 0) | addressing |
         (filter_ == CL_FILTER_LINEAR ? kFilterLinear : kFilterNearest);
}

} // namespace kiln
