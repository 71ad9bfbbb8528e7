// cl_sampler: how a kernel's image reads address and filter an image. Its state is also what a
// kernel receives for a sampler argument: the CLK_* bits of OpenCL C's sampler initializers.
#pragma once

#include "runtime/objects/object.hpp"

#include <vector>

namespace kiln {

class Context;

class Sampler : public Object<_cl_sampler, ObjectKind::Sampler>, public RefCounted<Sampler> {
public:
  Sampler(Context &context, bool normalizedCoords, cl_addressing_mode addressing,
          cl_filter_mode filter, std::vector<cl_sampler_properties> properties);
  ~Sampler();

  Context &context() const { return *context_; }
  bool normalizedCoords() const { return normalizedCoords_; }
  cl_addressing_mode addressingMode() const { return addressing_; }
  cl_filter_mode filterMode() const { return filter_; }
  /// CL_SAMPLER_PROPERTIES: as given to clCreateSamplerWithProperties, else empty.
  const std::vector<cl_sampler_properties> &properties() const { return properties_; }

  /// The sampler as OpenCL C encodes one (CLK_NORMALIZED_COORDS_*, CLK_ADDRESS_*,
  /// CLK_FILTER_* or-ed together), which kernels receive.
  cl_uint kernelBits() const;

private:
  Ref<Context> context_;
  bool normalizedCoords_;
  cl_addressing_mode addressing_;
  cl_filter_mode filter_;
  std::vector<cl_sampler_properties> properties_;
};

} // namespace kiln
