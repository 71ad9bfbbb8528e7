// Sampler entry points: creation (with and without properties), info, retain and release.
// Samplers exist only in contexts with a device that supports images.
#include "api/api_support.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/sampler.hpp"

#include <algorithm>

using namespace kiln;
using namespace kiln::api;

namespace {

bool isAddressingMode(cl_ulong mode) {
  return mode == CL_ADDRESS_NONE || mode == CL_ADDRESS_CLAMP_TO_EDGE || mode == CL_ADDRESS_CLAMP ||
         mode == CL_ADDRESS_REPEAT || mode == CL_ADDRESS_MIRRORED_REPEAT;
}

bool isFilterMode(cl_ulong mode) {
  return mode == CL_FILTER_NEAREST || mode == CL_FILTER_LINEAR;
}

bool isBool(cl_ulong value) {
  return value == CL_TRUE || value == CL_FALSE;
}

cl_sampler createSampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing,
                         cl_filter_mode filter, std::vector<cl_sampler_properties> properties,
                         cl_int &error) {
  Context *owner = toObject<Context>(context);
  if (owner == nullptr) {
    error = CL_INVALID_CONTEXT;
    return nullptr;
  }
  if (!isBool(normalized) || !isAddressingMode(addressing) || !isFilterMode(filter)) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  const auto &devices = owner->devices();
  if (std::none_of(devices.begin(), devices.end(),
                   [](const Device *device) { return device->info().imageSupport; })) {
    error = CL_INVALID_OPERATION;
    return nullptr;
  }
  return createObject<Sampler>(*owner, normalized == CL_TRUE, addressing, filter,
                               std::move(properties));
}

} // namespace

KILN_API cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                cl_addressing_mode addressing_mode,
                                                cl_filter_mode filter_mode, cl_int *errcode_ret) {
  return guardCreate<cl_sampler>(errcode_ret, [&](cl_int &error) {
    return createSampler(context, normalized_coords, addressing_mode, filter_mode, {}, error);
  });
}

KILN_API cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context context, const cl_sampler_properties *sampler_properties, cl_int *errcode_ret) {
  return guardCreate<cl_sampler>(errcode_ret, [&](cl_int &error) -> cl_sampler {
    if (toObject<Context>(context) == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    // The defaults the specification names for properties left out.
    cl_ulong normalized = CL_TRUE, addressing = CL_ADDRESS_CLAMP, filter = CL_FILTER_NEAREST;
    std::vector<cl_sampler_properties> list;
    std::vector<cl_sampler_properties> seen;
    for (const cl_sampler_properties *entry = sampler_properties; entry != nullptr && entry[0] != 0;
         entry += 2) {
      cl_sampler_properties name = entry[0];
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
        error = CL_INVALID_VALUE; // a property named twice
        return nullptr;
      }
      seen.push_back(name);
      auto value = static_cast<cl_ulong>(entry[1]);
      if (name == CL_SAMPLER_NORMALIZED_COORDS)
        normalized = value;
      else if (name == CL_SAMPLER_ADDRESSING_MODE)
        addressing = value;
      else if (name == CL_SAMPLER_FILTER_MODE)
        filter = value;
      else {
        error = CL_INVALID_VALUE;
        return nullptr;
      }
      list.insert(list.end(), {entry[0], entry[1]});
    }
    if (sampler_properties != nullptr)
      list.push_back(0);
    if (!isBool(normalized) || !isAddressingMode(addressing) || !isFilterMode(filter)) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    return createSampler(context, static_cast<cl_bool>(normalized),
                         static_cast<cl_addressing_mode>(addressing),
                         static_cast<cl_filter_mode>(filter), std::move(list), error);
  });
}

KILN_API cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  return retainObject<Sampler>(sampler, CL_INVALID_SAMPLER);
}

KILN_API cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  return releaseObject<Sampler>(sampler, CL_INVALID_SAMPLER);
}

KILN_API cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret) {
  Sampler *self = toObject<Sampler>(sampler);
  if (self == nullptr)
    return CL_INVALID_SAMPLER;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_SAMPLER_REFERENCE_COUNT:
      return out(self->externalCount());
    case CL_SAMPLER_CONTEXT:
      return out(static_cast<cl_context>(&self->context()));
    case CL_SAMPLER_NORMALIZED_COORDS:
      return out.boolean(self->normalizedCoords());
    case CL_SAMPLER_ADDRESSING_MODE:
      return out(self->addressingMode());
    case CL_SAMPLER_FILTER_MODE:
      return out(self->filterMode());
    case CL_SAMPLER_PROPERTIES:
      return out(self->properties());
    default:
      return CL_INVALID_VALUE;
    }
  });
}
