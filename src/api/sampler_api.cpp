// Sampler entry points. Samplers exist only for images, which no Kiln device supports yet
// (CL_DEVICE_IMAGE_SUPPORT is false), so creation fails as the specification asks and no
// sampler handle can ever be valid.
#include "api/api_support.hpp"
#include "runtime/context.hpp"

using namespace kiln;
using namespace kiln::api;

namespace {

cl_sampler noImageSupport(cl_context context, cl_int *errcodeRet) {
  if (errcodeRet != nullptr)
    *errcodeRet = toObject<Context>(context) == nullptr ? CL_INVALID_CONTEXT : CL_INVALID_OPERATION;
  return nullptr;
}

} // namespace

KILN_API cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                cl_addressing_mode addressing_mode,
                                                cl_filter_mode filter_mode, cl_int *errcode_ret) {
  return noImageSupport(context, errcode_ret);
}

KILN_API cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context context, const cl_sampler_properties *sampler_properties, cl_int *errcode_ret) {
  return noImageSupport(context, errcode_ret);
}

KILN_API cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  return CL_INVALID_SAMPLER;
}

KILN_API cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  return CL_INVALID_SAMPLER;
}

KILN_API cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret) {
  return CL_INVALID_SAMPLER;
}
